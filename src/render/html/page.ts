import type { Column, Row } from '../types.js';
import type { CellPlace } from '../values.js';
import { alertOf, htmlCell, isNumeric } from './cells.js';
import { esc } from './escape.js';
import { type Level, levelText } from './summary.js';

/**
 * The page's policy: nothing runs and nothing is fetched. `default-src 'none'` forbids scripts,
 * frames, fonts, connections and any request out; only the page's own inline style (its
 * `<style>` and the SVG's presentation) and inline `data:` images are allowed.
 */
export const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const CSS = `
:root{color-scheme:light;--ok:#009E73;--warn:#E69F00;--bad:#D55E00;--ink:#1b1b1b;--muted:#555;--line:#d0d0d0}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);margin:0;padding:0 16px 32px;max-width:1200px}
h1{font-size:1.5rem;margin:16px 0 4px}h2{font-size:1.2rem;margin:24px 0 8px;border-bottom:2px solid var(--ink)}h3{font-size:1rem;margin:16px 0 6px}
.meta{color:var(--muted);margin:0 0 12px;overflow-wrap:anywhere}
.figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:8px;margin:0 0 12px;padding:0}
.figures div{border:1px solid var(--line);border-radius:6px;padding:8px}
.figures dt,.figures dd{overflow-wrap:anywhere}.figures dt{color:var(--muted);font-size:.8rem}.figures dd{margin:0;font-size:1.25rem;font-weight:600;font-variant-numeric:tabular-nums}.figures dd.qualifier{font-size:.8rem;font-weight:400;color:var(--muted)}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(360px,1fr));gap:16px}
figure{margin:0;break-inside:avoid}figcaption{font-size:.85rem;color:var(--muted)}
svg{max-width:100%;height:auto}
.scroll{overflow:auto;max-width:100%;max-height:85vh;background:linear-gradient(to right,#fff 30%,#fff0) left/32px 100% no-repeat local,linear-gradient(to left,#fff 30%,#fff0) right/32px 100% no-repeat local,radial-gradient(farthest-side at 0 50%,#0003,#0000) left/10px 100% no-repeat scroll,radial-gradient(farthest-side at 100% 50%,#0003,#0000) right/10px 100% no-repeat scroll}
.scroll::-webkit-scrollbar{height:10px}.scroll::-webkit-scrollbar-thumb{background:#bbb;border-radius:5px}.scroll::-webkit-scrollbar-track{background:#f3f3f3}
table{border-collapse:collapse;font-size:12px;margin:4px 0 12px}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{border-bottom:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top;white-space:nowrap}
thead th{position:sticky;top:0;z-index:2;background:#f3f3f3;border-bottom:2px solid var(--ink);white-space:normal;vertical-align:bottom;min-width:5em;max-width:12em}
tbody th[scope=row]{position:sticky;left:0;z-index:1;background:#fff}thead th:first-child{left:0;z-index:3}
table.wrap td{white-space:normal;min-width:8em;max-width:40em}table.wrap th[scope=row]{white-space:normal;max-width:24em}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
tr.total th,tr.total td{font-weight:700;border-top:2px solid var(--ink)}
.s{display:inline-block;width:.8em;height:.8em;border-radius:50%;margin-right:4px;vertical-align:-1px;border:1px solid #0006}
.bad .s,.s.bad{background:var(--bad)}.warn .s,.s.warn{background:var(--warn)}.ok .s,.s.ok{background:var(--ok)}
td.bad{font-weight:600}
.status{font-weight:700}
.note{color:var(--muted);font-size:.85rem}
nav a{margin-right:12px}
section.first h2{margin-top:14px}
.lead{border:2px solid var(--line);border-radius:8px;padding:4px 12px 0}.lead h3{margin:8px 0 2px}
.headline{font-size:1.15rem;font-weight:600;margin:0 0 4px}
.verdicts{display:grid;grid-auto-flow:column;grid-auto-columns:minmax(0,1fr);gap:8px;list-style:none;margin:0 0 8px;padding:0}
.verdicts li{border:1px solid var(--line);border-left:6px solid var(--ok);border-radius:6px;padding:6px 8px;overflow-wrap:anywhere}
.verdicts li.warn{border-left-color:var(--warn)}.verdicts li.bad{border-left-color:var(--bad)}.verdicts a{font-weight:600}.verdicts .status{white-space:nowrap;font-size:.8rem}.verdicts .why{display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;overflow:hidden;color:var(--muted);font-size:.8rem}
.freshness{margin:0 0 6px}
@media (max-width:600px){body{padding:0 8px 24px;font-size:15px}.charts{grid-template-columns:1fr}h1{font-size:1.25rem}.verdicts{grid-auto-flow:row}}
@media print{body{max-width:none;padding:0}section.page{break-before:page}thead{display:table-header-group}tr,figure{break-inside:avoid}thead th,tbody th[scope=row]{position:static}.scroll{overflow:visible;max-height:none}}
`;

/** A status: a colour dot and the word (never the colour alone). */
export function statusBadge(level: Level): string {
  return `<span class="status ${level}"><span class="s ${level}" aria-hidden="true"></span>${levelText[level]}</span>`;
}

/** The page around `body`: CSP, viewport, style. */
export function pageShell(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
<style>${CSS}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** One row's `<tr>`: the first column a row header, numbers right, alerts with colour and text. */
export function tableRow(
  columns: Column[],
  cells: ((value: string | number | boolean, place: CellPlace) => string)[],
  places: CellPlace[],
  row: Row,
  rowNumber: number,
  anchors?: { key: string; prefix: string },
): string {
  let out = '';
  const first = row[columns[0]?.key ?? ''];
  const total =
    typeof first === 'string'
      ? /^Total/.test(first)
      : columns.some(
          (c) => c.type === 'string' && typeof row[c.key] === 'string' && /^Total/.test(String(row[c.key])),
        );
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i] as Column;
    const value = row[column.key];
    const place = places[i] as CellPlace;
    place.row = rowNumber;
    const text =
      value === null || value === undefined ? '' : (cells[i] as (typeof cells)[number])(value, place);
    const alert = alertOf(column, value);
    const cls = [isNumeric(column) ? 'n' : '', alert ?? ''].filter((c) => c !== '').join(' ');
    const href = column.link === undefined ? undefined : row[column.link];
    const linked = typeof href === 'string' && href !== '' ? `<a href="${esc(href)}">${text}</a>` : text;
    const body = alert === undefined ? linked : `<span class="s" aria-hidden="true"></span>${linked}`;
    const tag = i === 0 ? 'th scope="row"' : 'td';
    out += `<${tag}${cls === '' ? '' : ` class="${cls}"`}>${body}</${i === 0 ? 'th' : 'td'}>`;
  }
  const anchor = anchors === undefined ? undefined : row[anchors.key];
  const id =
    anchor === null || anchor === undefined || total
      ? ''
      : ` id="${esc(`${anchors?.prefix ?? ''}${String(anchor)}`)}"`;
  return `<tr${id}${total ? ' class="total"' : ''}>${out}</tr>`;
}

/** The cell formatters and places of a table. */
export function tableCells(name: string, columns: Column[], zone = 'UTC') {
  return {
    cells: columns.map((c) => htmlCell(c, zone)),
    places: columns.map((column): CellPlace => ({ sheet: name, row: 0, column })),
  };
}

export function tableHead(columns: Column[]): string {
  return `<thead><tr>${columns
    .map(
      (c) => `<th scope="col"${isNumeric(c) ? ' class="n"' : ''} title="${esc(c.key)}">${esc(c.title)}</th>`,
    )
    .join('')}</tr></thead>`;
}

/** A whole table of rows (summary sheets, the stuck list). */
export function table(
  name: string,
  caption: string,
  columns: Column[],
  rows: Row[],
  id?: string,
  anchors?: { key: string; prefix: string },
  wrap = false,
  zone = 'UTC',
): string {
  const { cells, places } = tableCells(name, columns, zone);
  const body = rows.map((r, i) => tableRow(columns, cells, places, r, i + 1, anchors)).join('\n');
  // A sheet of long text (rules, notes) wraps its cells so it fits the page; others scroll in their box.
  return `<div class="scroll"><table${id === undefined ? '' : ` id="${esc(id)}"`}${wrap ? ' class="wrap"' : ''}><caption>${esc(caption)}</caption>${tableHead(columns)}<tbody>\n${body}\n</tbody></table></div>`;
}
