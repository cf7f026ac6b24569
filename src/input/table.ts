/** A table read from a user's file: rows of named cells, each with its row number in the file. */
export type CellValue = string | number | boolean | null;

export interface InputRow {
  /** Row number as the user sees it: the line in CSV/NDJSON (header is 1), the row in XLSX, the item (1-based) in JSON. */
  row: number;
  values: Record<string, CellValue>;
}

export interface InputTable {
  file: string;
  columns: string[];
  rows: InputRow[];
}

/** Edges of ASCII spaces and tabs are not part of a value; anything else is kept as written. */
export const edgeTrim = (s: string) => s.replace(/^[ \t]+|[ \t]+$/g, '');
