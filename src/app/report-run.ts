import { sql } from 'kysely';
import type { Config } from '../config/index.js';
import type { AsOf } from '../dates.js';
import { UsageError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Mirror } from '../mirror/index.js';
import type { ReportFormat } from '../render/index.js';
import type { ReportDefinition } from '../reports/index.js';
import { runTime, writeReports } from './reports.js';

/** What `ohs report` asks for, its flags read. */
export interface ReportRequest {
  /** `--as-of` / `--as-of-time` / the clock, resolved (dates.ts `resolveAsOf`). */
  asOf: AsOf;
  present: boolean;
  orgIds: number[];
  options: Record<string, unknown>;
  outDir: string;
  formats: ReportFormat[];
  quiet: boolean;
  /** `--csv-excel`: ';' between fields. */
  csvExcel: boolean;
}

/** Refuses an org id the mirror knows nothing of (no order item, invoice, OrgMonth or policy). */
async function checkOrgs(mirror: Mirror, orgIds: number[]): Promise<void> {
  for (const id of orgIds) {
    const found = await mirror.db
      .selectNoFrom((eb) =>
        eb
          .or([
            eb.exists(eb.selectFrom('orderitem').select(sql`1`.as('x')).where('OrgId', '=', id)),
            eb.exists(eb.selectFrom('invoice').select(sql`1`.as('x')).where('OrgId', '=', id)),
            eb.exists(eb.selectFrom('orgmonth').select(sql`1`.as('x')).where('OrgId', '=', id)),
            eb.exists(eb.selectFrom('org_policy').select(sql`1`.as('x')).where('org_id', '=', id)),
          ])
          .as('known'),
      )
      .executeTakeFirst();
    if (!found?.known)
      throw new UsageError(
        `--org ${id}: no org ${id} in the mirror (not in any order item, invoice, OrgMonth or policy)`,
      );
  }
}

/**
 * `ohs report`: the instant to read the mirror at (the as-of instant, the end of a past as-of
 * date, or the present), the orgs checked against the mirror, then the chosen reports written.
 * Returns the files written; the run's summary lines go to stderr unless `quiet`.
 */
export async function runReports(
  mirror: Mirror,
  config: Config,
  logger: Logger,
  chosen: readonly ReportDefinition[],
  r: ReportRequest,
): Promise<string[]> {
  const time = await runTime(mirror, r.asOf, { present: r.present });
  await checkOrgs(mirror, r.orgIds);
  return writeReports(mirror, config, logger, chosen, {
    time,
    orgIds: r.orgIds,
    options: r.options,
    outDir: r.outDir,
    formats: r.formats,
    out: process.stderr,
    quiet: r.quiet,
    ...(r.csvExcel ? { csv: { delimiter: ';' as const } } : {}),
  });
}
