import { printable } from './printable.js';

/**
 * The plain text table every command prints (status, plan, apply, outbox, probe): each column
 * padded to its widest cell, header included, two spaces apart, no blanks at a line's end, each
 * line ended by a newline; control characters of a cell shown escaped (cells come from files and
 * from the service). Without a header, the rows alone (a list of names and values).
 */
export function textTable(
  header: readonly string[] | undefined,
  cells: readonly (readonly string[])[],
): string {
  const rows = [...(header === undefined ? [] : [header]), ...cells.map((r) => r.map((c) => printable(c)))];
  const widths: number[] = [];
  for (const r of rows) for (const [i, c] of r.entries()) widths[i] = Math.max(widths[i] ?? 0, c.length);
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return rows.map((r) => `${line(r)}\n`).join('');
}
