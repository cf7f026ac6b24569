import { closeSync, writeFileSync } from 'node:fs';
import { instantsInWords } from '../../dates.js';
import { createExclusive } from '../../util/safe-file.js';
import type { DetailLayout, Renderer, RenderTail } from '../renderer.js';
import { forEachRow } from '../streams.js';
import type { CodeWords, Column, Row, Sheet } from '../types.js';
import { renderChart } from './charts.js';
import { esc, groupDigits } from './escape.js';
import { pageShell, statusBadge, table, tableCells, tableHead, tableRow } from './page.js';
import {
  coveredMonthEnds,
  figureHtml,
  type PageSummary,
  plural,
  type ReadSheet,
  type ReportSummary,
  whenOf,
} from './summary.js';
import { inWords, labelOf } from './words.js';

/** Detail rows shown in the page; the full detail is in the CSV (the page says so). */
export const HTML_DETAIL_ROWS = 5000;

export interface HtmlPageInfo {
  report: string;
  title: string;
  asOf: string;
  /** The report's words for its codes (its declaration's): warnings, About lines, column titles. */
  words?: CodeWords;
  /** The reporting time zone: instants are said to the second in it, the zone named. */
  timezone?: string;
}

/** Columns with their titles in words ("AT_LAB" → "At the lab"); keys and cells as they are. */
export function titlesInWords(columns: Column[], words: CodeWords): Column[] {
  return columns.map((c) => {
    const title = labelOf(c.title, words);
    return title === c.title ? c : { ...c, title };
  });
}

/**
 * Reads summary sheets' rows (a few hundred at most) so more than one renderer can use them; the
 * sheets keep their other settings (wrap, totals, print view) for the workbook.
 */
export async function readSheets(sheets: Sheet[]): Promise<(Sheet & ReadSheet)[]> {
  const out: (Sheet & ReadSheet)[] = [];
  for (const s of sheets) {
    const rows: Row[] = [];
    await forEachRow(s.rows, (r) => {
      rows.push(r);
      return undefined;
    });
    out.push({ ...s, rows });
  }
  return out;
}

/**
 * One self-contained HTML page per report (docs/html-reports.md): the headline figures and
 * charts (inline SVG), the report's summary tables, the detail (its first HTML_DETAIL_ROWS rows),
 * warnings and the About lines. No script, no request out (CSP), every value escaped, printable
 * (a section per page, table headers repeated) and readable on a phone. Summary first: the detail
 * rows are kept (as HTML) until the summaries, read after the detail, are known.
 */
export class HtmlRenderer implements Renderer {
  readonly format = 'html';
  private readonly rows: string[] = [];
  private rowNumber = 0;
  private readonly cells;
  /**
   * The detail's columns the page shows: a detail with a print view (one unit per measure, e.g.
   * ages in days only) shows that view's columns; the CSV and the workbook keep every column.
   */
  private readonly columns: Column[];
  private readonly words: CodeWords;
  private readonly zone: string;

  /** Text the report wrote, as a person reads it: its codes in words, its instants to the second. */
  private say(text: string): string {
    return instantsInWords(inWords(text, this.words), this.zone);
  }

  constructor(
    path: string,
    private readonly detail: DetailLayout,
    private readonly info: HtmlPageInfo,
  ) {
    const shown = detail.print === undefined ? undefined : new Set(detail.print.columns);
    this.words = info.words ?? {};
    const columns = shown === undefined ? detail.columns : detail.columns.filter((c) => shown.has(c.key));
    this.columns = titlesInWords(columns, this.words);
    this.zone = info.timezone ?? 'UTC';
    this.cells = tableCells(detail.name, this.columns, this.zone);
    // The file is created now (exclusively, 0600), as the other formats' are, and written at the end.
    this.fd = createExclusive(path, 0o600);
  }

  private fd: number | undefined;

  write(row: Row): undefined {
    this.rowNumber++;
    if (this.rows.length < HTML_DETAIL_ROWS)
      this.rows.push(
        tableRow(this.columns, this.cells.cells, this.cells.places, row, this.rowNumber, this.detail.anchors),
      );
    return undefined;
  }

  async finish(tail: RenderTail): Promise<void> {
    const sheets = await readSheets(tail.summaries);
    // The verdict and the page's charts were computed once (writeReport): this page shows them.
    const verdict = tail.summary;
    const summary = tail.page;
    const body = [
      `<header><h1>${esc(this.info.title)}</h1><p class="meta">${esc(this.say(whenOf(verdict)))} · ${statusBadge(verdict.level)} · ${plural(this.rowNumber, 'detail row')} · ${plural(tail.warnings.length, 'warning')}</p></header>`,
      '<main>',
      await this.summarySection(verdict, summary),
      ...sheets.map((s, i) => {
        const trend = s.columns.some((c) => c.key === 'monthEnd');
        const { covered, omitted } = trend ? coveredMonthEnds(s.rows) : { covered: s.rows, omitted: [] };
        // Month ends before the mirror's history: one line saying when it begins, not empty rows.
        const shown = omitted.length === 0 ? s.rows : covered;
        const line =
          omitted.length === 0 ? '' : `<p class="note">${esc(this.say(omittedLine(s, omitted)))}</p>`;
        const tableHtml =
          shown.length === 0
            ? ''
            : table(
                s.name,
                `${s.name}: ${plural(shown.length, 'row')}`,
                titlesInWords(s.columns, this.words),
                shown,
                `table-sheet-${i}`,
                s.anchors,
                s.wrap === true,
                this.zone,
              );
        return `<section class="page" aria-labelledby="sheet-${i}"><h2 id="sheet-${i}">${esc(s.name)}</h2>${line}${tableHtml}</section>`;
      }),
      this.detailSection(),
      `<section class="page" aria-labelledby="warnings"><h2 id="warnings">Warnings (${tail.warnings.length})</h2>${
        tail.warnings.length === 0
          ? '<p>None.</p>'
          : `<ul>${tail.warnings.map((w) => `<li>${esc(this.say(w))}</li>`).join('')}</ul>`
      }</section>`,
      `<section aria-labelledby="about"><h2 id="about">About</h2><div class="scroll"><table><caption>About this report</caption><tbody>${tail.about
        .map(
          ([k, v]) =>
            `<tr><th scope="row">${esc(this.say(k))}</th><td style="white-space:normal">${esc(this.say(v))}</td></tr>`,
        )
        .join('')}</tbody></table></div></section>`,
      '</main>',
    ].join('\n');
    const fd = this.fd;
    this.fd = undefined;
    if (fd === undefined) return;
    try {
      writeFileSync(fd, pageShell(`${this.info.title}, ${tail.summary.covers ?? this.info.asOf}`, body));
    } finally {
      closeSync(fd);
    }
  }

  private async summarySection(verdict: ReportSummary, summary: PageSummary | undefined): Promise<string> {
    // The sentence read first (the changes report's "since the last run: ..."), then the problems.
    const headline =
      verdict.headline === undefined ? '' : `<p class="headline">${esc(this.say(verdict.headline))}</p>`;
    const said =
      headline +
      (verdict.problems.length === 0
        ? ''
        : `<ul class="verdict">${verdict.problems.map((p) => `<li>${esc(this.say(p))}</li>`).join('')}</ul>`);
    const figures = `${said}<dl class="figures">${verdict.figures
      .map((f) => figureHtml(f, esc))
      .join('')}</dl>`;
    // The list shown first is headed by its table's caption alone (a heading above it said it twice).
    const first =
      summary?.first === undefined
        ? ''
        : `${table(this.detail.name, summary.first.title, this.columns, summary.first.rows, 'table-first', undefined, false, this.zone)}${
            summary.first.more > 0
              ? `<p class="note">${groupDigits(String(summary.first.more))} more in the detail below and in the CSV.</p>`
              : summary.first.rows.length === 0
                ? '<p class="note">None.</p>'
                : ''
          }`;
    const charts: string[] = [];
    for (const c of summary?.charts ?? [])
      charts.push(
        `<figure class="chart" data-chart="${esc(c.id)}">${await renderChart(c)}<figcaption>${esc(c.title)}</figcaption></figure>`,
      );
    return `<section aria-labelledby="summary"><h2 id="summary">Summary</h2>${figures}${first}${
      charts.length === 0 ? '' : `<div class="charts">${charts.join('\n')}</div>`
    }</section>`;
  }

  private detailSection(): string {
    const shown = this.rows.length;
    const rowsNote =
      shown < this.rowNumber
        ? `<p class="note">The first ${groupDigits(String(shown))} of ${plural(this.rowNumber, 'row')}; every row is in the CSV and the workbook.</p>`
        : '';
    const hidden = this.detail.columns.length - this.columns.length;
    const note =
      hidden === 0
        ? rowsNote
        : `${rowsNote}<p class="note">The main columns are shown; ${hidden} more (the same measures in other units, and details) ${hidden === 1 ? 'is' : 'are'} in the CSV and the workbook.</p>`;
    // Never the page's title twice: a detail named like its report is headed as the rows it lists.
    const heading =
      this.detail.name === this.info.title ? `${this.detail.name}, row by row` : this.detail.name;
    return `<section class="page" aria-labelledby="detail"><h2 id="detail">${esc(heading)}</h2>${note}<div class="scroll" tabindex="0" role="region" aria-label="${esc(this.detail.name)}, scrolls in its box"><table id="table-detail"><caption>${esc(this.detail.name)}: ${plural(this.rowNumber, 'row')}</caption>${tableHead(this.columns)}<tbody>\n${this.rows.join('\n')}\n</tbody></table></div></section>`;
  }

  async abort(): Promise<void> {
    this.rows.length = 0;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * The one line of a trend's month ends before the mirror's history: when the history begins (read
 * from the rows' note, "omitted: before the mirror's history begins (START)") and what is left out.
 */
function omittedLine(sheet: ReadSheet, omitted: string[]): string {
  const notes = sheet.rows.map((r) => String(r.note ?? ''));
  const start = notes.map((n) => /\(([^)]*)\)\s*$/.exec(n)?.[1]).find((x) => x !== undefined);
  const span =
    omitted.length === 1 ? omitted[0] : `${omitted.length} month ends, ${omitted[0]} to ${omitted.at(-1)}`;
  const begins =
    start === undefined ? "The mirror's history has not begun yet" : `The mirror's history begins ${start}`;
  return omitted.length === sheet.rows.length
    ? `${begins}: the trend starts at the first month end after it (none yet; ${span} left out, the mirror did not know them).`
    : `${begins}: ${span} before it left out (the mirror did not know them).`;
}
