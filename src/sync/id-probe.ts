import type { ProtocolError } from '../api/index.js';
import type { ResourceTableName } from '../mirror/index.js';
import { seenState } from '../mirror/index.js';
import { type IdLayout, idLayout } from './id-layout.js';
import { type FailureBudget, type Fetched, fetchOne, writeBatch } from './id-read.js';
import { readWindow } from './id-window.js';
import { stagePage } from './passes.js';
import type { IdStreamDecl, StreamContext, SyncOptions } from './types.js';

/**
 * How many ids (steps of the stream's stride) one run may ask above the highest known id: as far
 * again as the span of ids the stream holds, from its lowest to its highest (the records it
 * holds, at their own spacing: a stream of 3,000 records a mean 1.7 ids apart may find 3,000 more
 * over 5,000 ids), at least `sync.probeWindow`, never more than `sync.probeMaxIds`. A stream that
 * holds nothing (a first sync) has no span to go by: only the evidence (each answer one of the
 * resource, the id asked), the window of 404s and `sync.probeMaxIds` end its probing. A service
 * making up whole records that pass every check for every id thus at most doubles a stream per
 * run, and a run that stops at the reach says so: the next goes on from there.
 */
export function probeReach(
  options: Pick<SyncOptions, 'probeWindow' | 'probeMaxIds'>,
  layout: IdLayout,
): number {
  if (layout.low === undefined || layout.top === undefined) return options.probeMaxIds;
  const span = Math.floor((layout.top - layout.low) / layout.stride) + 1;
  return Math.min(options.probeMaxIds, Math.max(options.probeWindow, span));
}

/** What a ProtocolError says was wrong, without the request (its path carries the field list). */
const what = (err: ProtocolError): string => err.message.replace(/: GET \S+$/, '');

/**
 * Records an answer failing the record checks (not the id asked, no field but the id, a field the
 * resource does not declare or of another type: a foreign record) as the evidence that the
 * service is not answering for the resource: the stream incomplete, saying which id answered
 * what. Only the first is kept; the caller stops asking. `top`: the highest id found, above which
 * nothing more is asked.
 */
export function noteEvidence(
  decl: IdStreamDecl,
  ctx: StreamContext,
  id: string,
  err: ProtocolError,
  top: number | undefined,
): void {
  if (ctx.stats.probeEvidence !== undefined) return;
  const answered = `the service answered id ${id} wrongly (${what(err)}): evidence that it is not answering for ${decl.resource} (it answers ids it does not hold, or with another resource's records)`;
  ctx.stats.probeEvidence = answered;
  const above = top === undefined || !Number.isFinite(top) ? 'new ids' : `ids above ${top}`;
  ctx.stats.incomplete = `${above} not asked: ${answered}, so probing for new records stopped there; new records are not read until it answers 404 for an id it does not hold and only ${decl.resource} records for the others (check the service's GET by id)`;
  ctx.logger.warn({ id, found: top }, `probing stopped: ${answered}`);
}

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
 *   no field but its id: id-read.ts; one carrying a field its resource does not declare or a
 *   declared field of another type, a foreign record: the client's get) is evidence that the
 *   service is not answering for the resource. Probing stops there (nothing of it stored, the
 *   ids in flight finish), and the stream is recorded incomplete, saying which id answered what
 *   (noteEvidence);
 * - the other stop is the reach (probeReach): ids asked above the highest known id in one run,
 *   as far again as the span the stream holds, the guard against a service making up whole
 *   records that pass every check. The stream is then recorded incomplete too (what is missing
 *   and what to do), and the next run goes on from the highest id found.
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
  const reach = probeReach(ctx.options, layout);
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
      const held =
        layout.count === 0
          ? `the stream held nothing, sync.probeMaxIds ${ctx.options.probeMaxIds}`
          : `as far again as the span of ids the stream holds, ${layout.count} records over ids ${layout.low} to ${layout.top}, at least sync.probeWindow, at most sync.probeMaxIds ${ctx.options.probeMaxIds}`;
      const missing = `ids above ${bound} not asked: probing stopped after ${reach} ids above the highest known id, still finding records (one run reaches ${held})`;
      ctx.logger.warn({ bound, found: top }, `${missing}; run ohs sync again to go on from there`);
      ctx.stats.probeBounded = true;
      ctx.stats.incomplete = `${missing}: run ohs sync again to go on from there`;
      stopped = true;
      return undefined;
    }
    const id = next;
    next += step;
    return String(id);
  };
  // An answer failing the record checks ends probing: the service is not answering for the resource.
  const evidence = (id: string, err: ProtocolError) => {
    noteEvidence(decl, ctx, id, err, top);
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
