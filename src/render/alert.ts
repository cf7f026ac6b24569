import type { Column } from './types.js';

/**
 * The exception level of a cell by its column's `alert`: 'bad' (red), 'warn' (amber) or none.
 * The same reading for the page and the workbook; a number's unit does not matter (only its
 * sign is read), so cents and dollars agree.
 */
export function alertOf(column: Column, value: unknown): 'bad' | 'warn' | undefined {
  const a = column.alert;
  if (a === undefined || value === null || value === undefined) return undefined;
  if (typeof value === 'string') {
    if (a.red?.includes(value)) return 'bad';
    if (a.amber?.includes(value)) return 'warn';
    // A code with a qualifier ("BEHIND (assumed rate)") is an exception all the same, but not a
    // measured one: amber, never red.
    const code = value.replace(/ \([^()]*\)$/, '');
    if (code !== value && (a.red?.includes(code) || a.amber?.includes(code))) return 'warn';
    return undefined;
  }
  if (typeof value !== 'number') return undefined;
  if (a.positive !== undefined && value > 0) return a.positive === 'red' ? 'bad' : 'warn';
  if (a.nonZero !== undefined && value !== 0) return a.nonZero === 'red' ? 'bad' : 'warn';
  return undefined;
}
