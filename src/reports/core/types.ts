import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { LocalDate, ReportTime } from '../../dates.js';
import type { Database } from '../../mirror/index.js';
import type { SummaryBuilder } from '../../render/html/summary.js';
import type { CodeWords, Facts, ReportResult, Row, Sheet } from '../../render/types.js';
import type { MonthEnd } from './ar-trend.js';
import type { ReportRun } from './run.js';

/**
 * The common parameters, checked and read once (runner.ts): views of `params.time` at hand (the
 * as-of date, its text and instant), never derived from anything else.
 */
export interface CommonParams {
  /** The as-of date in the reporting zone. */
  asOf: LocalDate;
  /** The same, `YYYY-MM-DD`. */
  asOfText: string;
  /** The as-of instant given (`--as-of-time`), else the end of the as-of date in the zone. */
  asOfMs: number;
  orgIds: number[];
  timezone: string;
}

/** Parameters every report takes; a report may read more from `options`. */
export interface ReportParams {
  /**
   * When the run stands (dates.ts `ReportTime`): the as-of asked, the instant the figures stand
   * at, the instant the mirror is read at (checked against the history's start by the caller),
   * decided once for the whole run.
   */
  time: ReportTime;
  /** Only these orgs (and their children where the report supports it); empty: all. */
  orgIds: number[];
  /** Report-specific options (e.g. agingBasis, includeTerminal), validated by the report. */
  options: Record<string, unknown>;
}

export interface ReportContext {
  db: Kysely<Database>;
  params: ReportParams;
  /** The run this report is part of (what it shares with the others); absent: a run of its own. */
  run?: ReportRun;
}

/** A report as the application runs it (runner.ts makes one of each declaration). */
export interface ReportDefinition<N extends string = string> {
  name: N;
  title: string;
  description: string;
  /** The names of its options (`--option NAME=VALUE`). */
  options: readonly string[];
  /** The flags of its own that `ohs report` takes (the declaration's); none: it takes only the common ones. */
  flags: readonly ReportFlag[];
  /** The streams it reads (the declaration's): a report over one never synced is refused. */
  streams: readonly string[];
  /**
   * Reads its own options of `options` by its schema, as `run` will, and throws the first that
   * does not read (ReportParamError): a command checks them before it opens the mirror.
   */
  checkOptions(options: Record<string, unknown>): void;
  run(ctx: ReportContext): Promise<ReportResult>;
  /** Its Trend rows at the given month ends (or any instants); none when it has no trend. */
  trend(ctx: ReportContext, ends: readonly MonthEnd[]): Promise<Row[]>;
  /** Its HTML page's summary (the declaration's `html`); absent: the page shows the tables only. */
  html?: () => SummaryBuilder;
  /** The words a person reads for its codes (the declaration's `words`; none: an empty map). */
  words: CodeWords;
}

/**
 * A flag of `ohs report` that one report takes (`--from INSTANT` of the roll-forward): the command
 * adds it to its help, naming the reports that take it, refuses it for a report that does not,
 * and hands its value to the report as the option `option` (the same as `--option NAME=VALUE`).
 */
export interface ReportFlag<K extends string = string> {
  /** The flag without its dashes (`from` is `--from`): lower case, words joined by `-`. */
  name: string;
  /** The name of its value in the help (`instant`: `--from <instant>`). */
  value: string;
  /** What it is, for the help (the command puts the reports that take it in front). */
  description: string;
  /** The report option it fills (a key of the declaration's `options`). */
  option: K;
  /** A value for the help's example line; absent: the flag is left out of the example. */
  example?: string;
}

/** What the runner hands a report's `build`: the parameters checked, the scope and names read. */
export interface ReportInput<O> {
  db: Kysely<Database>;
  params: ReportParams;
  common: CommonParams;
  /** The report's options, parsed by its schema (defaults filled). */
  opts: O;
  /**
   * The orgs of the report: params.orgIds, with their descendants (org_policy.parent_org_id)
   * when the report has the option includeChildren and it is true; null: every org.
   */
  scope: Set<number> | null;
  /** The instant the mirror is read at (params.time.mirrorAt); undefined: the present. */
  at: string | undefined;
  /** Org names (org-names.ts) as the mirror knew them at `at`. */
  names: Map<number, string>;
  /** The run: work shared with the other reports of the run (built once, handed on typed). */
  run: ReportRun;
  /**
   * The input another report's build would get in this run (the same parameters, its own options
   * only, `options` over them): a report built on another reads the other's typed figures with it.
   */
  inputFor<T extends z.ZodObject>(
    other: ReportDeclaration<T>,
    options?: Record<string, unknown>,
  ): Promise<ReportInput<z.output<T>>>;
}

/**
 * What a report's `build` returns: its typed product (`facts`), its sheets (views of it), warnings
 * and About lines.
 */
export interface ReportBody<P extends Facts = Facts> {
  /**
   * The files' name after the report's, when the report names them by something other than its
   * as-of (the roll-forward: both ends of its period); absent: `ASOF[-at-INSTANT]`.
   */
  fileName?: string;
  /**
   * What the report covers when it is a period, not an instant (the roll-forward: "from … to …"):
   * the page's header and the dashboard's card say it in place of "As of …".
   */
  covers?: string;
  detail: Sheet;
  /** Summary sheets, first in the workbook; read once the detail is done. */
  summaries: () => Sheet[];
  /** Problems in the data; read once the detail is done. */
  warnings: () => string[];
  /**
   * About lines: how the report reads the mirror (`method`), then, after the runner's lines on
   * the last sync of each of its streams, what it found (`results`).
   */
  about: () => { method: [string, string][]; results: [string, string][] };
  /**
   * Its typed product (render/types.ts `Facts`, the report's own type; read once the detail is
   * done): the one value its page summary, the dashboard, the run's controls (app/controls.ts) and
   * the reports built on it read, never one of its sheets by name.
   */
  facts?: () => P;
  /**
   * Its Trend sheet, last in the workbook (the runner puts it after the summaries); the
   * application writes it again as `NAME-trend-DATE.csv`.
   */
  trend?: Sheet;
}

/**
 * A report is a declaration (a folder under src/reports with one entry in index.ts): its name,
 * options schema, the streams it reads, `build`, which queries the mirror and lays out the rows
 * and sheets, and optionally `html`, its page's summary. The runner (runner.ts) owns the rest.
 */
export interface ReportDeclaration<
  S extends z.ZodObject = z.ZodObject,
  N extends string = string,
  P extends Facts = Facts,
> {
  name: N;
  title: string;
  description: string;
  /** Its options (`--option NAME=VALUE`): one zod object, the only list of them. */
  options: S;
  /**
   * Flags of `ohs report` of its own, each filling one of its options (tsc checks the key);
   * absent: it takes only the common flags and `--option`.
   */
  flags?: readonly ReportFlag<Extract<keyof z.output<S>, string>>[];
  /** The streams whose last sync the About sheet names (sync-info.ts). */
  streams: readonly string[];
  build(input: ReportInput<z.output<S>>): Promise<ReportBody<P>>;
  /**
   * The summary of its HTML page (headline figures, charts, a list shown first) from its product
   * `P`: a new builder per page, in the folder's `html.ts`. Absent: the page shows its sheets as
   * tables only.
   */
  html?: () => SummaryBuilder<P>;
  /**
   * The words a person reads for its codes (its folder's `words.ts`): its page, its verdict and the
   * dashboard say its codes through them; the CSV and the workbook keep the codes.
   */
  words?: CodeWords;
  /**
   * The rows of its Trend sheet at some month ends (or any instants of them), read on their own
   * (`ReportDefinition.trend`): what the nightly job draws and the history tests compare.
   */
  trend?(input: ReportInput<z.output<S>>, ends: readonly MonthEnd[]): Promise<Row[]>;
}
