import { posix } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { zipEntry } from './zip-size.js';

/**
 * What a person sees of a workbook's first sheet, read from the workbook's own XML with an XML
 * parser (fast-xml-parser), never with patterns: attribute quoting (`ht='0'`), namespace
 * prefixes, character references (`ht="&#48;"`) and boolean spellings (`1`, `true`) are the
 * parser's and the schema's business, not ours. exceljs reads the cells; it drops what hides
 * them (a row height of 0, the sheet's defaults), so the hiding is read here:
 * - the first sheet is the first `<sheet>` of xl/workbook.xml (the first tab), its `state`
 *   (`hidden`, `veryHidden`), and a hidden workbook window;
 * - a row is unseen when `hidden`, when its height (`ht`, or the sheet's `defaultRowHeight`) is
 *   under half a point, when the sheet hides rows by default (`sheetFormatPr zeroHeight`) and it
 *   does not give itself a height, or when it lies in a collapsed outline group;
 * - a column is unseen when a `<col>` range covering it is `hidden`, of width under half a
 *   character, in a collapsed outline group, or when no `<col>` covers it and the sheet's default
 *   width (`defaultColWidth`, else `baseColWidth`) is under half a character;
 * - merged ranges (`mergeCell ref`), which exceljs reads as the same value in every cell.
 */
export interface SheetLayout {
  /** The first tab's name, as exceljs names the worksheet. */
  name: string;
  /** `visible`, `hidden` or `veryHidden` (the whole window hidden counts as hidden). */
  state: string;
  /** Why row `n` (1-based) cannot be seen; undefined when it can. */
  rowHidden(n: number): string | undefined;
  /** Why column `c` (1-based) cannot be seen; undefined when it can. */
  columnHidden(c: number): string | undefined;
  /** Merged ranges: their reference and corners (1-based). */
  merges: { ref: string; top: number; left: number; bottom: number; right: number }[];
}

type Attrs = Record<string, string | undefined>;
type Node = Attrs & Record<string, unknown>;

const listed = new Set(['sheet', 'Relationship', 'row', 'col', 'cols', 'mergeCell', 'workbookView']);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  htmlEntities: true,
  parseAttributeValue: false,
  parseTagValue: false,
  // The cells themselves are exceljs's: kept as raw text, not built into objects.
  stopNodes: ['*.c'],
  isArray: (name) => listed.has(name),
});

/** xsd:boolean: `1` or `true` (surrounding blanks allowed, as the schema's whitespace facet collapses them). */
const isTrue = (v: unknown) => typeof v === 'string' && ['1', 'true'].includes(v.trim());
const isFalse = (v: unknown) => typeof v === 'string' && ['0', 'false'].includes(v.trim());
const num = (v: unknown): number | undefined => {
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  const n = Number(v.trim());
  return Number.isFinite(n) ? n : undefined;
};
const int = (v: unknown, fallback: number): number => {
  const n = num(v);
  return n === undefined ? fallback : Math.trunc(n);
};
const arr = (v: unknown): Node[] => (Array.isArray(v) ? (v as Node[]) : []);
const obj = (v: unknown): Node => (typeof v === 'object' && v !== null ? (v as Node) : {});

/** The part unpacked and parsed; undefined when absent, unreadable or carrying a DTD (OOXML never does). */
async function part(file: string, name: string): Promise<Node | undefined> {
  const bytes = await zipEntry(file, name);
  if (bytes === undefined) return undefined;
  const text = bytes.toString('utf8');
  if (text.includes('<!DOCTYPE')) return undefined;
  try {
    return obj(parser.parse(text));
  } catch {
    return undefined;
  }
}

/** A1 reference to row and column (1-based). */
function cellRef(ref: string): { row: number; col: number } | undefined {
  let col = 0;
  let i = 0;
  const up = ref.trim().toUpperCase().replace(/\$/g, '');
  for (; i < up.length; i++) {
    const c = up.charCodeAt(i);
    if (c < 65 || c > 90) break;
    col = col * 26 + (c - 64);
  }
  const row = Number(up.slice(i));
  return col > 0 && Number.isInteger(row) && row > 0 ? { row, col } : undefined;
}

/**
 * The outline groups a collapsed summary hides: the run of entries next to it (before it when the
 * summary is below/right, the default; after it otherwise) whose outline level is above its own.
 */
function collapsedHidden(
  levels: Map<number, number>,
  collapsed: number[],
  summaryAfter: boolean,
): Set<number> {
  const hidden = new Set<number>();
  for (const at of collapsed) {
    const own = levels.get(at) ?? 0;
    const step = summaryAfter ? -1 : 1;
    for (let k = at + step; k > 0 && (levels.get(k) ?? 0) > own; k += step) hidden.add(k);
  }
  return hidden;
}

function rowRule(ws: Node): SheetLayout['rowHidden'] {
  const fmt = obj(ws.sheetFormatPr);
  const zeroHeight = isTrue(fmt.zeroHeight);
  const defaultHeight = num(fmt.defaultRowHeight);
  const rows = new Map<number, Node>();
  const levels = new Map<number, number>();
  const collapsed: number[] = [];
  let last = 0;
  for (const r of arr(obj(ws.sheetData).row)) {
    const n = int(r.r, last + 1);
    last = n;
    rows.set(n, r);
    levels.set(n, int(r.outlineLevel, 0));
    if (isTrue(r.collapsed)) collapsed.push(n);
  }
  const outline = obj(obj(ws.sheetPr).outlinePr);
  const grouped = collapsedHidden(
    levels,
    collapsed,
    outline.summaryBelow === undefined || isTrue(outline.summaryBelow),
  );
  return (n) => {
    const r = rows.get(n);
    const ht = num(r?.ht);
    if (r !== undefined && isTrue(r.hidden)) return 'hidden';
    if (grouped.has(n)) return 'hidden (in a collapsed group)';
    if (ht !== undefined && ht < 0.5) return 'of zero height (unseen)';
    // Rows hidden by default: a row is seen only when it says so (its own height, or hidden="0").
    const shown = (ht !== undefined && isTrue(r?.customHeight)) || isFalse(r?.hidden);
    if (zeroHeight && !shown) return 'hidden (the sheet hides rows by default: zeroHeight)';
    if (ht === undefined && defaultHeight !== undefined && defaultHeight < 0.5)
      return 'of zero height (the sheet’s default row height)';
    return undefined;
  };
}

function columnRule(ws: Node): SheetLayout['columnHidden'] {
  const fmt = obj(ws.sheetFormatPr);
  const defaultWidth = num(fmt.defaultColWidth) ?? num(fmt.baseColWidth);
  const ranges = arr(obj(ws).cols).flatMap((c) => arr(c.col));
  const byColumn = new Map<number, Node>();
  const levels = new Map<number, number>();
  const collapsed: number[] = [];
  for (const c of ranges) {
    const min = int(c.min, 0);
    const max = Math.min(int(c.max, min), min + 16_384);
    for (let k = Math.max(min, 1); k <= max; k++) {
      byColumn.set(k, c);
      levels.set(k, int(c.outlineLevel, 0));
      if (isTrue(c.collapsed)) collapsed.push(k);
    }
  }
  const outline = obj(obj(ws.sheetPr).outlinePr);
  const grouped = collapsedHidden(
    levels,
    collapsed,
    outline.summaryRight === undefined || isTrue(outline.summaryRight),
  );
  return (k) => {
    const c = byColumn.get(k);
    if (c !== undefined && isTrue(c.hidden)) return 'hidden';
    if (grouped.has(k)) return 'hidden (in a collapsed group)';
    const width = num(c?.width);
    if (width !== undefined) return width < 0.5 ? 'of zero width' : undefined;
    if (defaultWidth !== undefined && defaultWidth < 0.5)
      return 'of zero width (the sheet’s default column width)';
    return undefined;
  };
}

/** The part a relationship's Target names, from the folder of the part that holds the relationships. */
function resolvePart(from: string, target: string): string {
  return target.startsWith('/') ? target.slice(1) : posix.normalize(posix.join(posix.dirname(from), target));
}

/**
 * The layout of the workbook's first tab; undefined when its parts cannot be found or read (the
 * caller refuses the file then: what cannot be checked is not read).
 */
export async function firstSheetLayout(file: string): Promise<SheetLayout | undefined> {
  const workbook = obj((await part(file, 'xl/workbook.xml'))?.workbook);
  const rels = obj((await part(file, 'xl/_rels/workbook.xml.rels'))?.Relationships);
  const first = arr(obj(workbook.sheets).sheet)[0];
  if (first === undefined || first.name === undefined) return undefined;
  const rid = first.id;
  const rel = arr(rels.Relationship).find((r) => r.Id === rid);
  if (rel?.Target === undefined) return undefined;
  const ws = obj((await part(file, resolvePart('xl/workbook.xml', rel.Target)))?.worksheet);
  if (Object.keys(ws).length === 0) return undefined;
  const windowHidden = arr(obj(workbook.bookViews).workbookView).some(
    (v) => v.visibility !== undefined && v.visibility.trim() !== 'visible',
  );
  const state = (first.state ?? 'visible').trim();
  const merges = arr(obj(ws.mergeCells).mergeCell).flatMap((m) => {
    const [a, b = a] = String(m.ref ?? '').split(':');
    const p = cellRef(a ?? '');
    const q = cellRef(b ?? '');
    if (p === undefined || q === undefined) return [];
    return [
      {
        ref: String(m.ref),
        top: Math.min(p.row, q.row),
        bottom: Math.max(p.row, q.row),
        left: Math.min(p.col, q.col),
        right: Math.max(p.col, q.col),
      },
    ];
  });
  return {
    name: first.name,
    state: state === 'visible' && windowHidden ? 'hidden (the workbook window is hidden)' : state,
    rowHidden: rowRule(ws),
    columnHidden: columnRule(ws),
    merges,
  };
}
