import type { Kysely } from 'kysely';
import type { Database } from '../mirror/index.js';
import type { ReportResult } from '../render/types.js';

/** Parameters every report takes; a report may read more from `options`. */
export interface ReportParams {
  /** The as-of date, YYYY-MM-DD, in the reporting time zone. */
  asOf: string;
  /** The as-of instant (end of the as-of day in the time zone, unless given), ISO 8601 UTC. */
  asOfTimestamp: string;
  /**
   * The instant to read the mirror at (ISO 8601 UTC; checked against the history's start by the
   * caller): queries name `asOf(db, table, mirrorAsOf)` instead of the table. Absent: the present.
   */
  mirrorAsOf?: string;
  /** Only these orgs (and their children where the report supports it); empty: all. */
  orgIds: number[];
  /** IANA time zone of the reporting dates. */
  timezone: string;
  /** Report-specific options (e.g. agingBasis, includeTerminal), validated by the report. */
  options: Record<string, unknown>;
}

export interface ReportContext {
  db: Kysely<Database>;
  params: ReportParams;
}

/** A report is a declaration: a name, a description, and a function from the mirror to sheets. */
export interface ReportDefinition {
  name: 'compliance' | 'unpaid-invoices' | 'order-ageing';
  title: string;
  description: string;
  /** The names of its options (`--option NAME=VALUE`). */
  options: readonly string[];
  run(ctx: ReportContext): Promise<ReportResult>;
}
