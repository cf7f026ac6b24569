import { colourOf, contrast, palette, themeColours } from './xlsx-colour.js';
import { arr, type Node, num, obj } from './xlsx-xml.js';

/**
 * How a cell shows, from its style (`s`, an index into `cellXfs`): its number format, its font
 * (size, colour) and its fill. A cell is read only when its style shows its value as it is:
 * - number formats: General, `@` (text), or one or two sections (the second for negatives, which
 *   then shows a minus or parentheses) of `0` or `#,##0` with an optional point and zeros, with
 *   currency signs, spaces and padding around; never rounding the value away (12.25 under `0.0`);
 *   no colours, conditions, scaling, percent, exponent, date or empty section (`;;;` hides);
 * - a font of at least 6 pt whose colour stands out from the fill (contrast at least 1.5:1 by
 *   WCAG's formula: white on white is 1:1); no fill is the window's white; a fill other than
 *   none or solid, a colour that cannot be resolved, or a style the workbook does not hold is
 *   refused, since it cannot be checked.
 */
export interface Styles {
  xfs: { numFmtId: number; fontId: number; fillId: number }[];
  formats: Map<number, string>;
  fonts: { size: number; colour: string | undefined; colourText: string }[];
  fills: { background: string | undefined; what: string }[];
}

/** Formats every workbook knows by id: the plain ones, and the date ones (refused, or read as dates). */
const BUILTIN: Record<number, string> = {
  0: 'General',
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  49: '@',
};
const BUILTIN_DATES = [
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54,
  55, 56, 57, 58,
];

export const MIN_FONT_PT = 6;
export const MIN_CONTRAST = 1.5;

const colourText = (c: unknown) => {
  const n = obj(c);
  for (const k of ['rgb', 'theme', 'indexed', 'auto']) if (n[k] !== undefined) return `${k} ${String(n[k])}`;
  return 'automatic';
};

/** The workbook's styles (`xl/styles.xml`) with its theme's colours; a workbook without styles shows the defaults. */
export function readStyles(styleSheet: Node | undefined, theme: Node | undefined): Styles {
  const st = obj(obj(styleSheet).styleSheet);
  const themed = themeColours(theme);
  const indexed = palette(st);
  const formats = new Map<number, string>();
  for (const f of arr(obj(st.numFmts).numFmt)) {
    const id = num(f.numFmtId);
    if (id !== undefined && typeof f.formatCode === 'string') formats.set(id, f.formatCode);
  }
  const fonts = arr(obj(st.fonts).font).map((f) => ({
    size: num(obj(f.sz).val) ?? 11,
    colour: colourOf(f.color, themed, indexed, '000000'),
    colourText: colourText(f.color),
  }));
  const fills = arr(obj(st.fills).fill).map((f) => {
    if (f.gradientFill !== undefined) return { background: undefined, what: 'a gradient fill' };
    const p = obj(f.patternFill);
    const type = (p.patternType ?? 'none').trim();
    if (type === 'none') return { background: 'FFFFFF', what: 'no fill' };
    if (type !== 'solid') return { background: undefined, what: `a ${type} pattern fill` };
    return {
      background: colourOf(p.fgColor, themed, indexed, undefined),
      what: `a solid fill (${colourText(p.fgColor)})`,
    };
  });
  const xfs = arr(obj(st.cellXfs).xf).map((x) => ({
    numFmtId: num(x.numFmtId) ?? 0,
    fontId: num(x.fontId) ?? 0,
    fillId: num(x.fillId) ?? 0,
  }));
  return { xfs, formats, fonts, fills };
}

/** A format code without its quoted text, escapes, padding and bracketed parts. */
const bare = (code: string) => code.replace(/"[^"]*"|\\.|_.|\*.|\[[^\]]*\]/g, '');

/** The number format of style `s` when it shows a date or time; undefined otherwise. */
export function dateFormat(styles: Styles, s: number): string | undefined {
  const id = styles.xfs[s]?.numFmtId ?? 0;
  const code = styles.formats.get(id) ?? BUILTIN[id];
  if (code === undefined) return BUILTIN_DATES.includes(id) ? `number format ${id}` : undefined;
  if (code.trim().toLowerCase() === 'general') return undefined;
  return /[dmyhs]|AM\/PM/i.test(bare(code)) ? `number format '${code}'` : undefined;
}

/** One section's decimals and whether it shows a minus sign; a string says why it is not plain. */
function section(code: string, negative: boolean): { decimals: number; signed: boolean } | string {
  let core = '';
  let signed = false;
  for (let i = 0; i < code.length; i++) {
    const c = code[i] as string;
    if (c === '"') {
      const end = code.indexOf('"', i + 1);
      const lit = code.slice(i + 1, end < 0 ? code.length : end);
      if (!/^[ $€£¥-]*$/u.test(lit)) return `the text "${lit}" in it`;
      signed ||= lit.includes('-');
      i = end < 0 ? code.length : end;
    } else if (c === '\\') {
      const lit = code[i + 1] ?? '';
      if (!/^[ $€£¥()-]$/u.test(lit)) return `the text '${lit}' in it`;
      signed ||= lit === '-' || lit === '(';
      i++;
    } else if (c === '_') i++;
    else if (c === '[') {
      const end = code.indexOf(']', i);
      const tag = code.slice(i, end < 0 ? code.length : end + 1);
      if (!/^\[\$[$€£¥]*(-[0-9A-Fa-f]+)?\]$/u.test(tag)) return `a colour or condition ${tag}`;
      i = end < 0 ? code.length : end;
    } else if (/[ $€£¥]/u.test(c)) continue;
    else if (c === '-' || c === '(' || c === ')') signed = true;
    else core += c;
  }
  const m = /^(?:#,##0|0)(?:\.(0+))?$/.exec(core);
  if (m === null)
    return core === '' ? 'an empty section: it hides the value' : `'${core}' (not a plain number)`;
  if (signed && !negative) return 'a sign shown on positive values';
  return { decimals: m[1]?.length ?? 0, signed };
}

/** Why the format `code` does not show `value` (a number cell; undefined for text) as it is. */
export function formatProblem(code: string, value: number | undefined): string | undefined {
  const t = code.trim();
  if (t.toLowerCase() === 'general' || t === '@') return undefined;
  const sections: string[] = [];
  let cur = '';
  for (let i = 0; i < t.length; i++) {
    const c = t[i] as string;
    if (c === '"') {
      const end = t.indexOf('"', i + 1);
      cur += t.slice(i, end < 0 ? t.length : end + 1);
      i = end < 0 ? t.length : end;
    } else if (c === '\\' || c === '_' || c === '*') {
      cur += t.slice(i, i + 2);
      i++;
    } else if (c === ';') {
      sections.push(cur);
      cur = '';
    } else cur += c;
  }
  sections.push(cur);
  if (sections.some((x) => x.trim() === '')) return 'an empty section hides the values it applies to';
  if (sections.length > 2)
    return `${sections.length} sections (a plain format has one, or two for negatives)`;
  const parsed = sections.map((s, k) => section(s, k === 1));
  const bad = parsed.findIndex((p) => typeof p === 'string');
  if (bad >= 0) return `${parsed[bad]}${sections.length > 1 ? ` (section ${bad + 1})` : ''}`;
  const [pos, neg] = parsed as { decimals: number; signed: boolean }[];
  if (neg !== undefined && !neg.signed) return 'a negative section without a sign';
  if (value === undefined || pos === undefined) return undefined;
  const shown = value < 0 && neg !== undefined ? neg : pos;
  const decimals = (String(Math.abs(value)).split('.')[1] ?? '').length;
  if (/e/i.test(String(value)) || decimals > shown.decimals)
    return `it rounds ${value} to ${shown.decimals} decimal${shown.decimals === 1 ? '' : 's'}`;
  return undefined;
}

/** Why a cell of style `s` does not show `value` (a number; undefined for text) as it is; undefined when it does. */
export function styleProblem(styles: Styles, s: number, value: number | undefined): string | undefined {
  const xf = s === 0 && styles.xfs.length === 0 ? { numFmtId: 0, fontId: 0, fillId: 0 } : styles.xfs[s];
  if (xf === undefined) return `style ${s}, which the workbook's styles do not hold`;
  const code = styles.formats.get(xf.numFmtId) ?? BUILTIN[xf.numFmtId];
  if (code === undefined) return `number format ${xf.numFmtId} (not a plain number format)`;
  const fmt = formatProblem(code, value);
  if (fmt !== undefined) return `number format '${code}': ${fmt}`;
  const font =
    styles.fonts[xf.fontId] ??
    (styles.fonts.length === 0 ? { size: 11, colour: '000000', colourText: 'automatic' } : undefined);
  if (font === undefined) return `font ${xf.fontId}, which the workbook's styles do not hold`;
  if (font.size < MIN_FONT_PT) return `a font of ${font.size} pt (under ${MIN_FONT_PT} pt)`;
  const fill =
    styles.fills[xf.fillId] ??
    (styles.fills.length === 0 ? { background: 'FFFFFF', what: 'no fill' } : undefined);
  if (fill === undefined) return `fill ${xf.fillId}, which the workbook's styles do not hold`;
  if (fill.background === undefined) return `${fill.what}, whose colour cannot be checked against the font's`;
  if (font.colour === undefined) return `a font colour (${font.colourText}) that cannot be resolved`;
  const ratio = contrast(font.colour, fill.background);
  if (ratio < MIN_CONTRAST)
    return `a font the colour of its fill (font ${font.colour} on ${fill.background}, contrast ${ratio.toFixed(2)}:1, under ${MIN_CONTRAST}:1)`;
  return undefined;
}
