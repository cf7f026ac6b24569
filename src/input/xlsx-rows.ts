import { arr, int, isFalse, isTrue, type Node, num, obj, type Range, rangeOf } from './xlsx-xml.js';

/**
 * What a person sees of a sheet's rows and columns, from the sheet's own XML (exceljs drops what
 * hides them: a row height of 0, the sheet's defaults):
 * - a row is unseen when `hidden`, when its height (`ht`, or the sheet's `defaultRowHeight`) is
 *   under half the normal row height (the sheet's default, at least Excel's standard 15 pt), when the sheet hides
 *   rows by default (`sheetFormatPr zeroHeight`) and it does not give itself a height, or when it
 *   lies in a collapsed outline group;
 * - a column is unseen when a `<col>` range covering it is `hidden`, under half the normal
 *   width (`defaultColWidth`, else `baseColWidth` + 0.43, at least the standard 8.43 characters),
 *   in a collapsed outline group, or when no `<col>` covers it and the sheet's default width is
 *   under that half;
 * - merged ranges (`mergeCell ref`).
 */
export interface SheetLayout {
  /** Why row `n` (1-based) cannot be seen; undefined when it can. */
  rowHidden(n: number): string | undefined;
  /** Why column `c` (1-based) cannot be seen; undefined when it can. */
  columnHidden(c: number): string | undefined;
  /** Merged ranges: their reference and corners (1-based). */
  merges: Range[];
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

/** Excel's standard row height (Calibri 11) and column width, in points and characters. */
const STANDARD_HEIGHT = 15;
const STANDARD_WIDTH = 8.43;

const fmt2 = (n: number) => String(Math.round(n * 100) / 100);

function rowRule(ws: Node): SheetLayout['rowHidden'] {
  const fmt = obj(ws.sheetFormatPr);
  const zeroHeight = isTrue(fmt.zeroHeight);
  const defaultHeight = num(fmt.defaultRowHeight);
  // Half the sheet's default row height, a default under Excel's standard (15 pt) counting as the standard.
  const normal = Math.max(defaultHeight ?? STANDARD_HEIGHT, STANDARD_HEIGHT);
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
    const seen = ht ?? defaultHeight ?? normal;
    if (seen < normal / 2)
      return `${fmt2(seen)} pt high${ht === undefined ? ' (the sheet’s default)' : ''}, under half the normal row height (${fmt2(normal)} pt)`;
    return undefined;
  };
}

function columnRule(ws: Node): SheetLayout['columnHidden'] {
  const fmt = obj(ws.sheetFormatPr);
  const defaultWidth = num(fmt.defaultColWidth) ?? num(fmt.baseColWidth);
  const normal = Math.max(num(fmt.defaultColWidth) ?? (num(fmt.baseColWidth) ?? 8) + 0.43, STANDARD_WIDTH);
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
    if (width !== undefined && width < 0.5) return 'of zero width';
    if (width === undefined && defaultWidth !== undefined && defaultWidth < 0.5)
      return 'of zero width (the sheet’s default column width)';
    const seen = width ?? defaultWidth ?? normal;
    if (seen < normal / 2)
      return `${fmt2(seen)} characters wide${width === undefined ? ' (the sheet’s default)' : ''}, under half the normal width (${fmt2(normal)})`;
    return undefined;
  };
}

/** The layout of a parsed `<worksheet>`. */
export function sheetLayout(ws: Node): SheetLayout {
  const merges = arr(obj(ws.mergeCells).mergeCell).flatMap((m) => {
    const r = rangeOf(String(m.ref ?? ''));
    return r === undefined ? [] : [r];
  });
  return { rowHidden: rowRule(ws), columnHidden: columnRule(ws), merges };
}
