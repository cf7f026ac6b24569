import { arr, type Node, num, obj } from './xlsx-xml.js';

/**
 * Colours of a workbook as RGB (`RRGGBB`): an `rgb` (ARGB, the alpha ignored as Excel does), a
 * theme colour (its index into the theme's colour scheme, with its tint), an indexed colour (the
 * legacy palette, or the workbook's own `indexedColors`) or `auto`. A colour that cannot be
 * resolved is undefined: the caller refuses what it cannot check.
 */
const PALETTE = (
  '000000 FFFFFF FF0000 00FF00 0000FF FFFF00 FF00FF 00FFFF 000000 FFFFFF FF0000 00FF00 0000FF FFFF00 FF00FF ' +
  '00FFFF 800000 008000 000080 808000 800080 008080 C0C0C0 808080 9999FF 993366 FFFFCC CCFFFF 660066 FF8080 ' +
  '0066CC CCCCFF 000080 FF00FF FFFF00 00FFFF 800080 800000 008080 0000FF 00CCFF CCFFFF CCFFCC FFFF99 99CCFF ' +
  'FF99CC CC99FF FFCC99 3366FF 33CCCC 99CC00 FFCC00 FF9900 FF6600 666699 969696 003366 339966 003300 333300 ' +
  '993300 993366 333399 333333 000000 FFFFFF'
).split(' ');

/** The theme's scheme in Excel's order of theme indexes: lt1, dk1, lt2, dk2, accents, links. */
const SCHEME = [
  'lt1',
  'dk1',
  'lt2',
  'dk2',
  'accent1',
  'accent2',
  'accent3',
  'accent4',
  'accent5',
  'accent6',
  'hlink',
  'folHlink',
];

const hex6 = (v: unknown): string | undefined => {
  if (typeof v !== 'string') return undefined;
  const t = v.trim().toUpperCase();
  if (/^[0-9A-F]{8}$/.test(t)) return t.slice(2);
  return /^[0-9A-F]{6}$/.test(t) ? t : undefined;
};

/** The theme's colours by theme index, from the theme part (`a:clrScheme`). */
export function themeColours(theme: Node | undefined): string[] {
  const scheme = obj(obj(obj(obj(theme).theme).themeElements).clrScheme);
  return SCHEME.map((name) => {
    const c = obj(scheme[name]);
    return hex6(obj(c.srgbClr).val) ?? hex6(obj(c.sysClr).lastClr) ?? '';
  });
}

/** The workbook's own palette (`styleSheet/colors/indexedColors`), else the legacy one. */
export function palette(styles: Node): string[] {
  const own = arr(obj(obj(styles.colors).indexedColors).rgbColor).map((c) => hex6(c.rgb) ?? '');
  return own.length > 0 ? [...own, ...PALETTE.slice(own.length)] : PALETTE;
}

function hslOf(rgb: string): [number, number, number] {
  const [r, g, b] = [0, 2, 4].map((i) => Number.parseInt(rgb.slice(i, i + 2), 16) / 255) as [
    number,
    number,
    number,
  ];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  const h = max === r ? (g - b) / d + (g < b ? 6 : 0) : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return [h / 6, s, l];
}

function rgbOf([h, s, l]: [number, number, number]): string {
  const hue = (p: number, q: number, t0: number) => {
    const t = t0 < 0 ? t0 + 1 : t0 > 1 ? t0 - 1 : t0;
    if (t < 1 / 6) return p + (q - p) * 6 * t;
    if (t < 1 / 2) return q;
    if (t < 2 / 3) return p + (q - p) * (2 / 3 - t) * 6;
    return p;
  };
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const channels = s === 0 ? [l, l, l] : [hue(p, q, h + 1 / 3), hue(p, q, h), hue(p, q, h - 1 / 3)];
  return channels
    .map((c) =>
      Math.round(c * 255)
        .toString(16)
        .padStart(2, '0')
        .toUpperCase(),
    )
    .join('');
}

/** A tint (-1 to 1) applied to a colour's luminance, as the spreadsheet format defines it. */
function tinted(rgb: string, tint: number): string {
  if (tint === 0) return rgb;
  const [h, s, l] = hslOf(rgb);
  return rgbOf([h, s, tint < 0 ? l * (1 + tint) : l * (1 - tint) + tint]);
}

/** A `<color>`-like element as RGB; `fallback` when it is absent or `auto`; undefined when unknown. */
export function colourOf(
  c: unknown,
  theme: string[],
  indexed: string[],
  fallback: string | undefined,
): string | undefined {
  if (c === undefined) return fallback;
  const n = obj(c);
  const tint = num(n.tint) ?? 0;
  let rgb: string | undefined;
  if (n.rgb !== undefined) rgb = hex6(n.rgb);
  else if (n.theme !== undefined) rgb = theme[num(n.theme) ?? -1] || undefined;
  else if (n.indexed !== undefined) rgb = indexed[num(n.indexed) ?? -1] || undefined;
  else if (n.auto !== undefined) return fallback;
  else return fallback;
  return rgb === undefined ? undefined : tinted(rgb, Math.max(-1, Math.min(1, tint)));
}

const luminance = (rgb: string) => {
  const lin = [0, 2, 4].map((i) => {
    const c = Number.parseInt(rgb.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
};

/** WCAG's contrast ratio of two colours: 1 (the same) to 21 (black on white). */
export function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}
