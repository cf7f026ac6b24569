import type { Logger } from '../log.js';
import type { ReportSummary } from '../render/html/summary.js';
import { count, level, money, type SummaryBuilder } from '../render/html/summary.js';
import { type Row, type WriteReportOptions, type WriteReportResult, writeReport } from '../render/index.js';
import { readSummaryChecked } from '../render/report-summary.js';
import type { Column } from '../render/types.js';
import {
  LINES,
  type ProductOf,
  type ReportName,
  type RollforwardProduct,
  type UnpaidProduct,
  type YtdFacts,
} from '../reports/index.js';
import { printable } from '../util/printable.js';

/**
 * The run's controls, as an accountant's control totals (docs/reports.md "Controls"): after
 * `report all` or the nightly job has written every report, each figure that reaches a person by
 * more than one path is compared across them, from the typed products the reports published
 * (`facts`: their workbooks' rows are views of them) and the verdict files the dashboard reads;
 * never a sheet found by its name. A control that does
 * not agree makes the run Needs attention, naming the figure and both values.
 */
export interface Control {
  /** The figure compared ("A/R total"). */
  figure: string;
  /** One path and its value, in words ("unpaid-invoices Open balance", "$373,564.91"). */
  a: { path: string; value: string };
  b: { path: string; value: string };
  agree: boolean;
}

/** What a report of the run published: its name and what writeReport returned. */
export interface Published {
  report: string;
  written: WriteReportResult;
}

const compare = (figure: string, a: Control['a'], b: Control['b']): Control => ({
  figure,
  a,
  b,
  agree: a.value === b.value,
});

/**
 * The typed product of a report of the run, of the type its declaration publishes (the registry's
 * `ProductOf`): the one place a written result's product is read, by the report's name.
 */
export function productOf<N extends ReportName>(
  run: readonly Published[],
  name: N,
): ProductOf<N> | undefined {
  return run.find((p) => p.report === name)?.written.facts as ProductOf<N> | undefined;
}
const summaryOf = (run: readonly Published[], name: string): ReportSummary | undefined =>
  run.find((p) => p.report === name)?.written.summary;
const figureOf = (s: ReportSummary | undefined, label: string) =>
  s?.figures.find((f) => f.label === label)?.value ?? 'not shown';

/**
 * The controls of a run: `instantMs`, the instant the run's figures stand at (ReportTime `at`);
 * undefined: not known, and the controls that need it are left out.
 */
export async function runControls(
  run: readonly Published[],
  instantMs: number | undefined,
): Promise<Control[]> {
  const out: Control[] = [];
  const ar = productOf(run, 'unpaid-invoices');
  const rf = productOf(run, 'ar-rollforward');
  const changes = productOf(run, 'changes');
  if (ar !== undefined) {
    out.push(
      compare(
        'A/R total',
        { path: 'unpaid-invoices (typed total)', value: money(ar.openBalance) },
        {
          path: 'unpaid-invoices page and dashboard',
          value: figureOf(summaryOf(run, 'unpaid-invoices'), 'Open balance'),
        },
      ),
    );
    // The By org sheet's rows are views of the product's orgs: they add up to the total.
    const summed = ar.orgs.reduce((t, o) => t + o.total, 0);
    out.push(
      compare(
        'A/R total',
        { path: 'unpaid-invoices (typed total)', value: money(ar.openBalance) },
        { path: 'unpaid-invoices By org, its orgs summed', value: money(summed) },
      ),
    );
  }
  if (rf !== undefined) out.push(...rollforwardControls(run, rf, ar, instantMs));
  if (changes !== undefined && instantMs !== undefined)
    out.push(
      compare(
        "The changes period's end",
        { path: 'changes (period end)', value: new Date(changes.toMs).toISOString() },
        { path: "the base reports' instant", value: new Date(instantMs).toISOString() },
      ),
    );
  out.push(...planControls(productOf(run, 'compliance'), productOf(run, 'catch-up')));
  out.push(...(await dashboardControls(run)));
  return out;
}

/** Compliance's counts = the catch-up plan's inputs: its YTD lines and completed totals, each. */
function planControls(compliance: YtdFacts | undefined, plan: YtdFacts | undefined): Control[] {
  if (compliance === undefined || plan === undefined) return [];
  const figures: [string, keyof YtdFacts][] = [
    ['employer × test-type lines', 'lines'],
    ['drug tests completed to date', 'drugCompletedYtd'],
    ['alcohol tests completed to date', 'alcoholCompletedYtd'],
  ];
  return figures.map(([words, key]) =>
    compare(
      `Compliance = catch-up: ${words}`,
      { path: 'compliance YTD lines (typed)', value: count(compliance[key]) },
      { path: "catch-up plan's inputs (typed)", value: count(plan[key]) },
    ),
  );
}

/** The roll-forward's figures: its page against its workbook's lines, its closing against the A/R. */
function rollforwardControls(
  run: readonly Published[],
  rf: RollforwardProduct,
  ar: UnpaidProduct | undefined,
  instantMs: number | undefined,
): Control[] {
  const out: Control[] = [];
  const page = summaryOf(run, 'ar-rollforward');
  // The workbook's line rows (the product's, which the sheet shows) follow the Period row in
  // LINES' order: each found by its place, never by its label.
  LINES.forEach((l, i) => {
    const row: Row | undefined = rf.lines[i + 1];
    out.push(
      compare(
        `Roll-forward: ${l.label.trim()}${l.label.startsWith(' ') ? ` (${l.key})` : ''}`,
        { path: 'ar-rollforward (typed)', value: money(rf[l.key]) },
        { path: 'ar-rollforward workbook', value: money(row?.amount) },
      ),
    );
  });
  const pageFigures: [string, number][] = [
    ['Opening A/R', rf.opening],
    ['Closing A/R', rf.closing],
    ['Credit balances at the start', rf.openingCredits],
    ['Credit balances at the end', rf.closingCredits],
  ];
  for (const [label, cents] of pageFigures)
    out.push(
      compare(
        `Roll-forward: ${label}`,
        { path: 'ar-rollforward (typed)', value: money(cents) },
        { path: 'ar-rollforward page and dashboard', value: figureOf(page, label) },
      ),
    );
  out.push(
    compare(
      "Roll-forward closing = the ageing at the period's end",
      { path: 'ar-rollforward closing', value: money(rf.closing) },
      { path: 'unpaid-invoices ageing at the end', value: money(rf.closing - rf.checkClosing) },
    ),
  );
  // The A/R total and the closing are one figure when the period ends at the A/R's instant.
  if (ar !== undefined && instantMs !== undefined && rf.toMs === instantMs)
    out.push(
      compare(
        'A/R total',
        { path: 'unpaid-invoices Open balance', value: money(ar.openBalance) },
        { path: 'ar-rollforward closing', value: money(rf.closing) },
      ),
    );
  return out;
}

/** Each verdict file the dashboard reads, read back: its figures are the page's. */
async function dashboardControls(run: readonly Published[]): Promise<Control[]> {
  const out: Control[] = [];
  for (const { report, written } of run) {
    if (written.summaryFile === undefined) continue;
    const read = await readSummaryChecked(written.summaryFile);
    const shown = read.summary?.figures ?? [];
    const page = written.summary.figures;
    const say = (fs: readonly { label: string; value: string }[]) =>
      fs.map((f) => `${f.label} ${f.value}`).join('; ');
    out.push(
      compare(
        `${report}: every figure`,
        { path: `${report} page`, value: say(page) },
        {
          path: `${report} dashboard (verdict file)`,
          value: read.summary === undefined ? read.problem : say(shown),
        },
      ),
    );
  }
  return out;
}

/** "controls: 12 of 12 agree" */
export const controlsWords = (controls: readonly Control[]) =>
  `controls: ${count(controls.filter((c) => c.agree).length)} of ${count(controls.length)} agree`;

/** A control that does not agree, in one line: the figure and both values. */
export const disagreement = (c: Control) => `${c.figure}: ${c.a.path} ${c.a.value}, ${c.b.path} ${c.b.value}`;

const columns: Column[] = [
  { key: 'figure', title: 'Figure', type: 'string', width: 40 },
  { key: 'pathA', title: 'Path', type: 'string', width: 36 },
  { key: 'valueA', title: 'Value', type: 'string', width: 24 },
  { key: 'pathB', title: 'Other path', type: 'string', width: 36 },
  { key: 'valueB', title: 'Value', type: 'string', width: 24 },
  { key: 'agree', title: 'Agree', type: 'boolean', width: 8 },
];

/** The controls' page summary: "controls: N of N agree"; Needs attention naming each that does not. */
function controlsHtml(controls: readonly Control[]): () => SummaryBuilder {
  return () => ({
    onRow() {},
    build() {
      const off = controls.filter((c) => !c.agree);
      return {
        status: level(false, off.length > 0),
        problems: off.map(disagreement),
        figures: [{ label: 'Controls', value: controlsWords(controls).replace(/^controls: /, '') }],
        charts: [],
        headline: controlsWords(controls),
      };
    },
  });
}

/**
 * Writes the controls as one more report of the run (`controls-ASOF…`: a row per control; its
 * page and verdict file, so the dashboard's verdict row and the job's closing lines show
 * "controls: N of N agree"), says it on `out` and in the log, and returns the files.
 */
export async function writeControls(
  run: readonly Published[],
  instantMs: number | undefined,
  opts: Omit<WriteReportOptions, 'name' | 'title' | 'html'>,
  logger: Logger,
  out: { write(text: string): unknown } | undefined,
): Promise<string[]> {
  const controls = await runControls(run, instantMs);
  const rows: Row[] = controls.map((c) => ({
    figure: c.figure,
    pathA: c.a.path,
    valueA: c.a.value,
    pathB: c.b.path,
    valueB: c.b.value,
    agree: c.agree,
  }));
  const written = await writeReport(
    {
      detail: { name: 'Controls', columns, rows, totals: 'none' },
      summaries: () => [],
      warnings: () => controls.filter((c) => !c.agree).map((c) => `CONTROL FAILED: ${disagreement(c)}`),
      about: () => [['Controls', 'each figure shown in more than one place, compared across its paths']],
    },
    { ...opts, name: 'controls', title: 'Run controls', html: controlsHtml(controls) },
  );
  out?.write(`${printable(`controls: ${written.summary.verdict}`, 1000)}\n`);
  logger.info(
    {
      report: 'controls',
      rows: controls.length,
      warnings: written.warnings.length,
      verdictLevel: written.summary.level,
      verdict: `${controlsWords(controls)}${written.summary.level === 'ok' ? '' : `: ${written.summary.problems.join('; ')}`}`,
      files: written.files,
    },
    'report written',
  );
  return [...written.files, ...(written.summaryFile === undefined ? [] : [written.summaryFile])];
}
