import type { ClassifiedItem, Flag } from './classify.js';
import { columnKeys } from './columns.js';

const flagRank: Record<Flag, number> = { STUCK: 0, WARN: 1, OK: 2 };

/** One computed row as sorted (and spilled): rank, ms in status, ms of age, id, cell values. */
export type Sortable = [number, number, number, number, (string | number | boolean | null)[]];

export function compareSortable(a: Sortable, b: Sortable): number {
  return a[0] - b[0] || b[1] - a[1] || b[2] - a[2] || a[3] - b[3];
}

export function sortable(c: ClassifiedItem): Sortable {
  const key = sortKey(c);
  key[4] = columnKeys.map((k) => c.row[k] ?? null);
  return key;
}

/** The item's place in the detail's order, without its cells (compareSortable reads no cells). */
export function sortKey(c: ClassifiedItem): Sortable {
  return [c.flag === null ? 3 : flagRank[c.flag], c.inStatusMs ?? -1, c.ageMs ?? -1, c.id, []];
}
