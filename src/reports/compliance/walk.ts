import type { Kysely } from 'kysely';
import type { Database } from '../../mirror/index.js';
import type { Row } from '../../render/types.js';
import { compareOrgs } from '../core/values.js';
import type { Collector } from './collector.js';
import type { OrgCalc } from './model.js';
import { monthsByOrg } from './month-inputs.js';
import { yearRates } from './month-rates.js';
import { computeOrg } from './org-calc.js';
import { namedProblems } from './problems.js';
import { ORGS_PER_QUERY, orgMonthOrgs, orgMonthRows } from './queries.js';
import { detailRow, ytdRow } from './rows.js';
import type { Setup } from './setup.js';

/**
 * The detail, org by org in name order: one query per ORGS_PER_QUERY orgs, each org's months
 * computed, its rows yielded and only its YTD row (and last month) kept, so memory grows with
 * the orgs, not with the org-months. What the summaries need is kept as it goes.
 */
export class OrgWalk {
  readonly rateCounts = new Map<string, number>();
  /** Orgs of a rollup (a parent and every org with one), with all their months. */
  readonly kept: OrgCalc[] = [];
  /** Every org with its last month only (YTD, totals, MIS). */
  readonly lasts: OrgCalc[] = [];
  readonly ytd: Row[] = [];
  /** Orgs with an OrgMonth row of the months reported. */
  readonly seen = new Set<number>();
  details = 0;
  private readonly inFamilies = new Set<number>();
  private state: 'idle' | 'walking' | 'done' = 'idle';

  constructor(
    private readonly db: Kysely<Database>,
    private readonly s: Setup,
    private readonly orgs: readonly { orgId: number; org: string | null }[],
    private readonly names: Map<number, string | null>,
    private readonly at: string | undefined,
    private readonly warn: Collector,
  ) {
    for (const p of s.policies)
      if (p.parent_org_id !== null) {
        this.inFamilies.add(p.org_id);
        this.inFamilies.add(p.parent_org_id);
      }
  }

  /** Whether its rows were read (or are being read): they can be read once. */
  get started(): boolean {
    return this.state !== 'idle';
  }

  /** The walk done (its rows read through unless they were): what the summaries need is kept. */
  async walked(): Promise<this> {
    if (this.state === 'walking') throw new Error('the compliance walk is being read: it cannot be awaited');
    if (this.state === 'idle') for await (const _ of this.rows());
    return this;
  }

  async *rows(): AsyncGenerator<Row> {
    if (this.state !== 'idle') throw new Error('the compliance walk is read once');
    this.state = 'walking';
    yield* this.walk();
    this.state = 'done';
  }

  private async *walk(): AsyncGenerator<Row> {
    const { year, m, versionsOf, defaults, inProgram } = this.s;
    for (let k = 0; k < this.orgs.length; k += ORGS_PER_QUERY) {
      const chunk = this.orgs.slice(k, k + ORGS_PER_QUERY);
      const ids = chunk.map((c) => c.orgId);
      const rows = await orgMonthRows(this.db, ids, this.at);
      const badLabels = new Map<number, number>();
      const byOrg = monthsByOrg(rows, this.names, null, year, m, this.warn, badLabels);
      for (const { orgId, org } of chunk) {
        const months = byOrg.get(orgId);
        if (months === undefined) continue;
        this.seen.add(orgId);
        const { rates, byMonth } = yearRates(versionsOf.get(orgId), year, m, defaults, this.warn);
        if (!inProgram(rates.program)) continue;
        this.rateCounts.set(rates.source, (this.rateCounts.get(rates.source) ?? 0) + 1);
        const calc = computeOrg(orgId, org, months, m, year, rates, this.warn, byMonth);
        const unreadable = badLabels.get(orgId);
        if (unreadable !== undefined) calc.unreadableLabels = unreadable;
        for (const mc of calc.months) {
          this.details++;
          yield detailRow(calc, mc, year);
        }
        this.ytd.push(ytdRow(calc, year));
        this.lasts.push({ ...calc, months: calc.months.slice(-1), problems: namedProblems(calc) });
        if (this.inFamilies.has(orgId)) this.kept.push(calc);
      }
    }
  }
}

/** The orgs of the report in name order: those with an OrgMonth row as known at `at`, in scope. */
export async function walkOrgs(
  db: Kysely<Database>,
  scope: Set<number> | null,
  names: Map<number, string>,
  at: string | undefined,
): Promise<{ orgId: number; org: string | null }[]> {
  return (await orgMonthOrgs(db, at))
    .filter((id) => scope === null || scope.has(id))
    .map((orgId) => ({ orgId, org: names.get(orgId) ?? null }))
    .sort(compareOrgs);
}
