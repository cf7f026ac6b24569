import { posix } from 'node:path';
import { InputError } from '../errors.js';
import { printable } from '../util/printable.js';
import { arr, int, isFalse, isTrue, type Node, obj, part } from './xlsx-xml.js';

/**
 * The sheet of a workbook that is read, chosen as a person would see it:
 * - with `--sheet NAME`, the tab of exactly that name (never trimmed, case kept);
 * - else the only visible tab, which must also be the tab the workbook opens on (`activeTab`);
 * - either way the tab is visible (not `hidden` or `veryHidden`, the workbook's window not
 *   hidden), and when the tab bar is hidden (`showSheetTabs="0"`) it is the tab the workbook
 *   opens on, the only one a person can see;
 * - no two tabs have names that differ only in spaces, case or Unicode form (`Pay ` beside `Pay`).
 */
export interface ChosenSheet {
  name: string;
  /** The sheet's parsed `<worksheet>`. */
  ws: Node;
  /** The workbook's styles and theme parts (undefined when absent). */
  styles: Node | undefined;
  theme: Node | undefined;
  /** The shared strings' `<si>` items. */
  strings: Node[];
  /** Dates count from 1904 (`workbookPr date1904`). */
  date1904: boolean;
}

/** The part a relationship's Target names, from the folder of the part that holds the relationships. */
function resolvePart(from: string, target: string): string {
  return target.startsWith('/') ? target.slice(1) : posix.normalize(posix.join(posix.dirname(from), target));
}

const same = (name: string) => name.normalize('NFKC').trim().toLowerCase();
const quoted = (name: string) => `'${printable(name, 100)}'`;

interface Tab {
  name: string;
  state: string;
  rid: string | undefined;
}

function pick(file: string, tabs: Tab[], view: Node, wanted: string | undefined): number {
  const seen = new Map<string, string>();
  for (const t of tabs) {
    const other = seen.get(same(t.name));
    if (other !== undefined)
      throw new InputError(
        `${file}: sheets ${quoted(other)} and ${quoted(t.name)} have names that differ only in spaces or case: rename one`,
      );
    seen.set(same(t.name), t.name);
  }
  if (view.visibility !== undefined && view.visibility.trim() !== 'visible')
    throw new InputError(`${file}: the workbook's window is hidden (${view.visibility.trim()}): unhide it`);
  const active = int(view.activeTab, 0);
  const tabsShown = !isFalse(view.showSheetTabs);
  const activeName = tabs[active]?.name ?? '(none)';
  let at: number;
  if (wanted !== undefined) {
    at = tabs.findIndex((t) => t.name === wanted);
    if (at < 0)
      throw new InputError(
        `${file}: no sheet named ${quoted(wanted)} (the name is matched exactly); its sheets: ${tabs.map((t) => quoted(t.name)).join(', ')}`,
      );
  } else {
    const visible = tabs.flatMap((t, k) => (t.state === 'visible' ? [k] : []));
    const first = tabs[0] as Tab;
    if (visible.length === 0)
      throw new InputError(
        `${file}: sheet ${quoted(first.name)} is ${first.state} (no sheet is visible): unhide it`,
      );
    if (visible.length !== 1)
      throw new InputError(
        `${file}: ${visible.length} visible sheets (${visible.map((k) => quoted(tabs[k]?.name ?? '')).join(', ')}): name the one to read with --sheet`,
      );
    at = visible[0] as number;
    if (at !== active)
      throw new InputError(
        `${file}: sheet ${quoted(tabs[at]?.name ?? '')} is not the sheet the workbook opens on (${quoted(activeName)}${tabs[active] === undefined || tabs[active]?.state === 'visible' ? '' : `, ${tabs[active]?.state}`}): save it with that sheet active, or name it with --sheet`,
      );
  }
  const tab = tabs[at] as Tab;
  if (tab.state !== 'visible')
    throw new InputError(
      `${file}: sheet ${quoted(tab.name)} is ${tab.state}: unhide it, or name a visible sheet`,
    );
  if (!tabsShown && at !== active)
    throw new InputError(
      `${file}: sheet ${quoted(tab.name)}: the tab bar is hidden (showSheetTabs="0") and the workbook opens on ${quoted(activeName)}, so the sheet cannot be seen: show the tabs or save it with that sheet active`,
    );
  return at;
}

/** The sheet to read and the parts its cells need; refuses, naming the feature, a workbook whose sheet cannot be told. */
export async function chooseSheet(file: string, wanted: string | undefined): Promise<ChosenSheet> {
  const workbook = obj((await part(file, 'xl/workbook.xml'))?.workbook);
  const rels = arr(obj((await part(file, 'xl/_rels/workbook.xml.rels'))?.Relationships).Relationship);
  const tabs: Tab[] = arr(obj(workbook.sheets).sheet).map((s) => ({
    name: typeof s.name === 'string' ? s.name : '',
    state: (s.state ?? 'visible').trim(),
    rid: s.id,
  }));
  if (tabs.length === 0) throw new InputError(`${file}: the workbook lists no sheet`);
  const view = arr(obj(workbook.bookViews).workbookView)[0] ?? {};
  const tab = tabs[pick(file, tabs, view, wanted)] as Tab;
  const target = (type: string) => rels.find((r) => String(r.Type ?? '').endsWith(`/${type}`))?.Target;
  const sheetTarget = rels.find((r) => r.Id === tab.rid)?.Target;
  const ws =
    sheetTarget === undefined
      ? undefined
      : (await part(file, resolvePart('xl/workbook.xml', sheetTarget)))?.worksheet;
  if (ws === undefined || typeof ws !== 'object')
    throw new InputError(
      `${file}: sheet ${quoted(tab.name)} cannot be read from the workbook: save it again from a spreadsheet program`,
    );
  const load = async (type: string) => {
    const t = target(type);
    return t === undefined ? undefined : part(file, resolvePart('xl/workbook.xml', t));
  };
  const sst = await load('sharedStrings');
  return {
    name: tab.name,
    ws: ws as Node,
    styles: await load('styles'),
    theme: await load('theme'),
    strings: arr(obj(sst?.sst).si),
    date1904: isTrue(obj(workbook.workbookPr).date1904),
  };
}
