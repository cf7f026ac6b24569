import { XMLParser } from 'fast-xml-parser';
import { zipEntry } from './zip-size.js';

/**
 * The parts of a workbook read with an XML parser (fast-xml-parser), never with patterns:
 * attribute quoting (`ht='0'`), namespace prefixes, character references (`ht="&#48;"`) and
 * boolean spellings (`1`, `true`) are the parser's and the schema's business. Values are kept as
 * written (not trimmed): a sheet named `Pay ` is not the sheet named `Pay`.
 */
export type Attrs = Record<string, string | undefined>;
export type Node = Attrs & Record<string, unknown>;

const listed = new Set([
  'sheet',
  'Relationship',
  'row',
  'c',
  'col',
  'cols',
  'mergeCell',
  'workbookView',
  'sheetView',
  'si',
  'r',
  'numFmt',
  'font',
  'fill',
  'xf',
  'rgbColor',
  'conditionalFormatting',
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  htmlEntities: true,
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  isArray: (name, _path, _leaf, isAttribute) => isAttribute !== true && listed.has(name),
});

/** xsd:boolean: `1` or `true` (surrounding blanks allowed, as the schema's whitespace facet collapses them). */
export const isTrue = (v: unknown) => typeof v === 'string' && ['1', 'true'].includes(v.trim());
export const isFalse = (v: unknown) => typeof v === 'string' && ['0', 'false'].includes(v.trim());
export const num = (v: unknown): number | undefined => {
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  const n = Number(v.trim());
  return Number.isFinite(n) ? n : undefined;
};
export const int = (v: unknown, fallback: number): number => {
  const n = num(v);
  return n === undefined ? fallback : Math.trunc(n);
};
export const arr = (v: unknown): Node[] => (Array.isArray(v) ? (v as Node[]) : []);
export const obj = (v: unknown): Node => (typeof v === 'object' && v !== null ? (v as Node) : {});
/** An element's text: the string itself, or its `#text` when it carries attributes (`xml:space`). */
export const text = (v: unknown): string | undefined => {
  if (typeof v === 'string') return v;
  const t = obj(v)['#text'];
  if (typeof t === 'string') return t;
  return typeof v === 'object' && v !== null ? '' : undefined;
};

/** The part unpacked and parsed; undefined when absent, unreadable or carrying a DTD (OOXML never does). */
export async function part(file: string, name: string): Promise<Node | undefined> {
  const bytes = await zipEntry(file, name);
  if (bytes === undefined) return undefined;
  const xml = bytes.toString('utf8');
  if (xml.includes('<!DOCTYPE')) return undefined;
  try {
    return obj(parser.parse(xml));
  } catch {
    return undefined;
  }
}

/** A1 reference to row and column (1-based). */
export function cellRef(ref: string): { row: number; col: number } | undefined {
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

/** A range (`B2:C5`, or one cell) as its corners, 1-based. */
export interface Range {
  ref: string;
  top: number;
  left: number;
  bottom: number;
  right: number;
}

export function rangeOf(ref: string): Range | undefined {
  const [a, b = a] = ref.split(':');
  const p = cellRef(a ?? '');
  const q = cellRef(b ?? '');
  if (p === undefined || q === undefined) return undefined;
  return {
    ref,
    top: Math.min(p.row, q.row),
    bottom: Math.max(p.row, q.row),
    left: Math.min(p.col, q.col),
    right: Math.max(p.col, q.col),
  };
}

export const inRange = (r: Range, row: number, col: number) =>
  row >= r.top && row <= r.bottom && col >= r.left && col <= r.right;

/** A1-style name of a column number (1: A, 27: AA). */
export function columnLetter(n: number): string {
  let out = '';
  for (let k = n; k > 0; k = Math.floor((k - 1) / 26)) out = String.fromCharCode(65 + ((k - 1) % 26)) + out;
  return out;
}
