import type { ProtocolError } from '../api/index.js';
import type { ResourceTableName } from '../mirror/index.js';
import { seenState } from '../mirror/index.js';
import { type IdLayout, idLayout } from './id-layout.js';
import { type FailureBudget, type Fetched, fetchOne, writeBatch } from './id-read.js';
import { readWindow } from './id-window.js';
import { stagePage } from './passes.js';
import type { IdStreamDecl, StreamContext, SyncOptions } from './types.js';

/**
 * How many ids (steps of the stream's stride) one run may ask above the highest known id: as many
 * as the stream holds records, at least `sync.probeMinIds` (what a first sync reaches from
 * `sync.idStart`), never more than `sync.probeMaxIds`. A service that keeps answering records
 * that pass every check (an id made up for each id asked) thus adds at most what the mirror holds
 * per run, and a run ends in minutes; a real day of new records is a small share of what a
 * stream holds, and a run that stops at the bound says so and the next goes on from there.
 */
export function probeReach(options: Pick<SyncOptions, 'probeMinIds' | 'probeMaxIds'>, held: number): number {
  return Math.min(options.probeMaxIds, Math.max(options.probeMinIds, held));
}

/** What a ProtocolError says was wrong, without the request (its path carries the field list). */
const what = (err: ProtocolError): string => err.message.replace(/: GET \S+$/, '');

/**
 * Probes ids above the highest known one (on the learnt stride) until `probeWindow` consecutive
 * 404s. The service gives new ids above the highest it has held, so a 404 can only turn into a
 * record if the id was asked before the service got there: with ids asked at once, or one after
 * another, a record created just after its 404 is followed by higher ones that are found, and
 * probing goes on above it. So once probing ends, the 404s it left below the highest id found
 * (within the window) are asked again. Those 404s are noted in the pass (as holes), so a run
 * killed before asking them again leaves them to the run that resumes the pass, which asks them
 * again with its own.
 * Probing goes on as long as it finds records, and ends on evidence, not on a count:
 * - an answer that fails the record checks (the record of another id, one with no id, one with
 *   no field but its id: id-read.ts) is evidence that the service answers ids it does not hold.
 *   Probing stops there (nothing of it stored, the ids in flight finish), and the stream is
 *   recorded incomplete, saying which id answered what;
 * - the other stop is the reach (probeReach): ids asked above the highest known id in one run,
 *   the guard against a service making up whole records. The stream is then recorded incomplete
 *   too (what is missing and what to do), and the next run goes on from the highest id found.
 */
export async function probeUpward(
  decl: IdStreamDecl,
  ctx: StreamContext,
  table: ResourceTableName,
  failures: FailureBudget,
  known?: IdLayout,
): Promise<void> {
  const layout = known ?? (await idLayout(ctx, table));
  const start = Number(ctx.options.idStart[decl.name]);
  const window = ctx.options.probeWindow;
  const step = layout.stride;
  // Records this pass found are staged, not yet in the table: a resumed pass probes above them
  // instead of asking them again.
  let staged: number | undefined;
  for (const id of await ctx.mirror.seenIds(decl.name, seenState.seen)) {
    const n = Number(id);
    if (Number.isSafeInteger(n) && (staged === undefined || n > staged)) staged = n;
  }
  let top = Math.max(layout.top ?? start - step, staged ?? Number.NEGATIVE_INFINITY);
  const reach = probeReach(ctx.options, layout.count);
  const bound = top + reach * step;
  /** Ids within the probe window below `highest`: where a 404 may have become a record since. */
  const belowWithin = (highest: number) => (id: number) => id < highest && id > highest - window * step;
  // The 404s a killed run's probing left below what it found (noted as holes): a record may have
  // been created there after its 404, and probing goes on above them, so they are asked again
  // now or never.
  const carried = (await ctx.mirror.seenIds(decl.name, seenState.hole)).map(Number).filter(belowWithin(top));
  const holes: number[] = [];
  // Every id up to `window` steps above the highest found is asked, through the sliding window: the
  // ids asked are those of probing batch by batch (a run finding nothing asks `window` ids), but
  // none waits for the slowest of a batch. Written in the order asked, as batches were: a resumed
  // pass probes on above the highest id written, so every id below it must be written too.
  let next = top + step;
  let stopped = false;
  const source = (): string | undefined => {
    if (stopped || next > top + window * step) return undefined;
    if (next > bound) {
      const missing = `ids above ${bound} not asked: probing stopped after ${reach} ids above the highest known id, still finding records (one run asks as many as the stream holds records, ${layout.count}, at least sync.probeMinIds ${ctx.options.probeMinIds}, at most sync.probeMaxIds ${ctx.options.probeMaxIds})`;
      ctx.logger.warn({ bound, found: top }, `${missing}; run ohs sync again to go on from there`);
      ctx.stats.probeBounded = true;
      ctx.stats.incomplete = `${missing}: run ohs sync again to go on from there, or raise sync.probeMinIds`;
      stopped = true;
      return undefined;
    }
    const id = next;
    next += step;
    return String(id);
  };
  // An answer failing the record checks ends probing: the service answers ids it does not hold.
  const evidence = (id: string, err: ProtocolError) => {
    if (ctx.stats.probeEvidence !== undefined) return;
    const answered = `the service answered id ${id} wrongly (${what(err)}): evidence that it answers ids it does not hold`;
    ctx.stats.probeEvidence = answered;
    ctx.stats.incomplete = `ids above ${top} not asked: ${answered}, so probing for new records stopped there; new records above ${top} are not read until it answers 404 for an id it does not hold (check the service's GET by id)`;
    ctx.logger.warn({ id, found: top }, `probing stopped: ${answered}`);
    stopped = true;
  };
  const ask = async (id: string): Promise<Fetched> => {
    const r = await fetchOne(decl, ctx, id, failures, evidence);
    if (typeof r === 'object') top = Math.max(top, Number(id));
    return r;
  };
  const probe = async (id: string): Promise<Fetched> => {
    const r = await ask(id);
    if (typeof r !== 'object') holes.push(Number(id));
    return r;
  };
  await readWindow(ctx, source, probe, (page) => writeBatch(decl, ctx, page, seenState.hole), true);
  const again = [...new Set([...carried, ...holes.filter(belowWithin(top))])]
    .sort((a, b) => a - b)
    .map(String);
  await readWindow(ctx, again, ask, async (page) => {
    const found = page.map(([, r]) => r).filter((r): r is Record<string, unknown> => typeof r === 'object');
    await stagePage(ctx, decl.name, decl.resource, found);
    ctx.progress.add(page.length);
  });
}
