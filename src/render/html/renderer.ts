import { closeSync, writeFileSync } from 'node:fs';
import { createExclusive } from '../../util/safe-file.js';
import type { DetailLayout, Renderer, RenderTail } from '../renderer.js';
import { forEachRow } from '../streams.js';
import type { Row, Sheet } from '../types.js';
import { renderChart } from './charts.js';
import { esc, groupDigits } from './escape.js';
import { pageShell, statusBadge, table, tableCells, tableHead, tableRow } from './page.js';
import type { Headline, PageSummary, ReadSheet, SummaryBuilder } from './summary.js';

/** Detail rows shown in the page; the full detail is in the CSV (the page says so). */
export const HTML_DETAIL_ROWS = 5000;

export interface HtmlPageInfo {
  report: string;
  title: string;
  asOf: string;
  /**
   * Makes the builder of the page's summary (headline figures, charts, a list shown first): the
   * report's own (its declaration's `html`). Absent: the generic page, its tables only.
   */
  summary?: () => SummaryBuilder;
}

/** Reads summary sheets' rows (a few hundred at most) so more than one renderer can use them. */
export async function readSheets(sheets: Sheet[]): Promise<ReadSheet[]> {
  const out: ReadSheet[] = [];
  for (const s of sheets) {
    const rows: Row[] = [];
    await forEachRow(s.rows, (r) => {
      rows.push(r);
      return undefined;
    });
    out.push({ name: s.name, columns: s.columns, rows });
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
  private readonly builder: SummaryBuilder | undefined;

  constructor(
    path: string,
    private readonly detail: DetailLayout,
    private readonly info: HtmlPageInfo,
  ) {
    this.cells = tableCells(detail.name, detail.columns);
    this.builder = info.summary?.();
    // The file is created now (exclusively, 0600), as the other formats' are, and written at the end.
    this.fd = createExclusive(path, 0o600);
  }

  private fd: number | undefined;

  write(row: Row): undefined {
    this.rowNumber++;
    this.builder?.onRow(row);
    if (this.rows.length < HTML_DETAIL_ROWS)
      this.rows.push(tableRow(this.detail.columns, this.cells.cells, this.cells.places, row, this.rowNumber));
    return undefined;
  }

  async finish(tail: RenderTail): Promise<void> {
    const sheets = await readSheets(tail.summaries);
    const summary = this.builder?.build(sheets);
    const headline: Headline = {
      report: this.info.report,
      title: this.info.title,
      asOf: this.info.asOf,
      status: summary?.status ?? (tail.warnings.length > 0 ? 'warn' : 'ok'),
      figures: summary?.figures ?? [{ label: 'Rows', value: groupDigits(String(this.rowNumber)) }],
    };
    const body = [
      `<header><h1>${esc(this.info.title)}</h1><p class="meta">As of ${esc(this.info.asOf)} · ${statusBadge(headline.status)} · ${groupDigits(String(this.rowNumber))} detail rows · ${tail.warnings.length} warnings</p></header>`,
      '<main>',
      await this.summarySection(headline, summary),
      ...sheets.map(
        (s, i) =>
          `<section class="page" aria-labelledby="sheet-${i}"><h2 id="sheet-${i}">${esc(s.name)}</h2>${table(s.name, `${s.name}: ${s.rows.length} rows`, s.columns, s.rows, `table-sheet-${i}`)}</section>`,
      ),
      this.detailSection(),
      `<section class="page" aria-labelledby="warnings"><h2 id="warnings">Warnings (${tail.warnings.length})</h2>${
        tail.warnings.length === 0
          ? '<p>None.</p>'
          : `<ul>${tail.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul>`
      }</section>`,
      `<section aria-labelledby="about"><h2 id="about">About</h2><div class="scroll"><table><caption>About this report</caption><tbody>${tail.about
        .map(
          ([k, v]) => `<tr><th scope="row">${esc(k)}</th><td style="white-space:normal">${esc(v)}</td></tr>`,
        )
        .join('')}</tbody></table></div></section>`,
      '</main>',
    ].join('\n');
    const fd = this.fd;
    this.fd = undefined;
    if (fd === undefined) return;
    try {
      writeFileSync(fd, pageShell(`${this.info.title}, ${this.info.asOf}`, body, headline));
    } finally {
      closeSync(fd);
    }
  }

  private async summarySection(headline: Headline, summary: PageSummary | undefined): Promise<string> {
    const figures = `<dl class="figures">${headline.figures
      .map((f) => `<div><dt>${esc(f.label)}</dt><dd>${esc(f.value)}</dd></div>`)
      .join('')}</dl>`;
    const first =
      summary?.first === undefined
        ? ''
        : `<h3>${esc(summary.first.title)}</h3>${table(this.detail.name, summary.first.title, this.detail.columns, summary.first.rows, 'table-first')}${
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
    const note =
      shown < this.rowNumber
        ? `<p class="note">The first ${groupDigits(String(shown))} of ${groupDigits(String(this.rowNumber))} rows; every row is in the CSV and the workbook.</p>`
        : '';
    return `<section class="page" aria-labelledby="detail"><h2 id="detail">${esc(this.detail.name)}</h2>${note}<div class="scroll"><table id="table-detail"><caption>${esc(this.detail.name)}: ${groupDigits(String(this.rowNumber))} rows</caption>${tableHead(this.detail.columns)}<tbody>\n${this.rows.join('\n')}\n</tbody></table></div></section>`;
  }

  async abort(): Promise<void> {
    this.rows.length = 0;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
