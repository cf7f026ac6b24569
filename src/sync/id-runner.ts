import type { ProtocolError } from '../api/index.js';
import type { MirrorWriter, ResourceTableName } from '../mirror/index.js';
import { displayBaseUrl, seenState, tableOf } from '../mirror/index.js';
import { crashPoint } from './crash.js';
import { idLayout } from './id-layout.js';
import { noteEvidence, probeUpward } from './id-probe.js';
import { type FailureBudget, failureBudget, fetchOne, writeBatch } from './id-read.js';
import { ID_PAGE, readWindow, settleBoth } from './id-window.js';
import {
  finishPass,
  nowIso,
  oneSeenId,
  type PassState,
  pendingPass,
  stagePage,
  startPass,
} from './passes.js';
import { type IdStreamDecl, InterruptedError, type StreamContext } from './types.js';

/** Moves the rotating re-read cursor, in the transaction that starts the pass. */
type Advance = (w: MirrorWriter) => Promise<void>;

const byId = (a: string, b: string) => Number(a) - Number(b) || (a < b ? -1 : a > b ? 1 : 0);

/**
 * Id streams (Invoice, Staff, Applicant have no list operation): ids come from the mirror (known
 * rows and ids other tables refer to), from files, and from probing upward past the highest
 * known id until `probeWindow` consecutive 404s, or until an answer shows the service answers ids
 * it does not hold, within a reach (id-probe.ts).
 * - full: every known row is re-read; ranges the mirror knows empty are not asked (the id
 *   layout, gaps and stride, is learnt from what is mirrored).
 * - incremental: rows that can still change (unpaid invoices), ids a run failed to read, and a
 *   rotating share of the id range (known rows and holes alike), so that every id up to the top
 *   is asked again within `rereadRuns` runs.
 * - a known id that now answers 404 is soft-deleted once the pass is complete (guarded), on
 *   evidence only: its 404 confirmed in this run, and the route seen answering a record in this
 *   run (confirmGone); an id that cannot be read (after the client's retries) is recorded and
 *   asked again next run, and the pass then deletes nothing. A full pass asks soft-deleted rows
 *   too: one that answers again is restored.
 * The pass notes each id's outcome in sync_pass_seen: a killed run resumes with the ids not done.
 */
export async function runIdStream(decl: IdStreamDecl, ctx: StreamContext): Promise<void> {
  const pending = await pendingPass(ctx, decl.name);
  if (pending !== undefined) {
    ctx.logger.info({ pass: pending.mode }, 'resuming an unfinished re-read');
    ctx.stats.mode = pending.mode === 'full' ? 'full' : 'incremental';
    await runPass(decl, ctx, pending, { probe: true });
    // A resumed incremental pass is no full pass: a --full run makes its own. Either
    // way the rows that can still change are read again, since they may have changed after the
    // killed run read them.
    if (pending.mode !== 'full' && ctx.options.full) return idPass(decl, ctx, 'full');
    if (decl.incrementalReread === 'open') return idPass(decl, ctx, 'catch-up');
    return;
  }
  const known = await ctx.mirror.db
    .selectFrom(tableOf(decl.resource).table as ResourceTableName)
    .select('id')
    .limit(1)
    .execute();
  return idPass(decl, ctx, ctx.options.full || known.length === 0 ? 'full' : 'incremental');
}

type IdPassKind = 'full' | 'incremental' | 'catch-up';

/** Starts a pass: the ids to read are noted in the same transaction as the pass itself. */
async function idPass(decl: IdStreamDecl, ctx: StreamContext, kind: IdPassKind): Promise<void> {
  ctx.stats.mode = kind === 'full' ? 'full' : 'incremental';
  const table = tableOf(decl.resource).table as ResourceTableName;
  const { wanted, advance } = await wantedIds(decl, ctx, table, kind);
  const pass = await startPass(
    ctx,
    decl.name,
    kind === 'full' ? 'full' : 'reopen',
    [{ cursor: null, upper: null }],
    async (w) => {
      await w.markSeen(decl.name, [...wanted], seenState.todo);
      await advance(w);
    },
  );
  crashPoint('id-pass-started');
  await runPass(decl, ctx, pass, { probe: kind !== 'catch-up' });
}

/** The ids a new pass reads (before probing upward). */
async function wantedIds(
  decl: IdStreamDecl,
  ctx: StreamContext,
  table: ResourceTableName,
  kind: IdPassKind,
): Promise<{ wanted: Set<string>; advance: Advance }> {
  const db = ctx.mirror.db;
  const wanted = new Set<string>();
  if (kind === 'full') {
    // Soft-deleted rows too: one that answers again is restored (and recorded) by this pass.
    for (const r of await db.selectFrom(table).select('id').execute()) wanted.add(String(r.id));
  } else if (decl.incrementalReread === 'open' && decl.openWhere !== undefined) {
    const open = decl.openWhere;
    const rows = await db
      .selectFrom(table)
      .select('id')
      .where('deleted_at', 'is', null)
      .where(open.column, '<>', open.notEqual)
      .execute();
    for (const r of rows) wanted.add(String(r.id));
  }
  let advance: Advance = async () => undefined;
  if (kind === 'incremental') {
    const slice = await rotation(decl, ctx, table);
    for (const id of slice.ids) wanted.add(id);
    advance = slice.advance;
  }
  if (kind !== 'catch-up') {
    const known = new Set((await db.selectFrom(table).select('id').execute()).map((r) => String(r.id)));
    for (const id of [
      ...(await referencedIds(decl, ctx)),
      ...(ctx.options.extraIds[decl.name] ?? []).map(String),
    ]) {
      if (!known.has(id)) wanted.add(id);
    }
    const failed = await db
      .selectFrom('sync_failed_id')
      .select('id')
      .where('stream', '=', decl.name)
      .execute();
    for (const r of failed) wanted.add(r.id);
  }
  return { wanted, advance };
}

/** Reads the ids of a pass not done yet, in batches fetched at once; then probes; then ends it. */
async function runPass(
  decl: IdStreamDecl,
  ctx: StreamContext,
  pass: PassState,
  opts: { probe: boolean },
): Promise<void> {
  const table = tableOf(decl.resource).table as ResourceTableName;
  const todo = (await ctx.mirror.seenIds(decl.name, seenState.todo)).sort(byId);
  const failures = failureBudget(todo.length);
  if (!opts.probe) await readBatches(decl, ctx, todo, failures);
  else {
    const layout = await idLayout(ctx, table);
    const top = layout.top;
    // Probing above the highest known id goes on beside the known ids when none of them lies
    // above it (a re-sync: the two sets do not meet, and the probe starts where it would after
    // them), not after them: the last ids and the probes were a tenth of a sync at 20 ms of
    // latency. Otherwise (a first sync reading referenced ids) it probes above what they found.
    if (top !== undefined && todo.every((id) => Number(id) <= top))
      await settleBoth(
        readBatches(decl, ctx, todo, failures),
        probeUpward(decl, ctx, table, failures, layout),
      );
    else {
      // The layout is the table's, which reading the ids does not change (they are staged).
      await readBatches(decl, ctx, todo, failures);
      await probeUpward(decl, ctx, table, failures, layout);
    }
    // Nothing where the ids were expected: look where they usually start, then probe from there
    // (not after an answer that was no record of the resource: the search would be more of them).
    if (
      ctx.stats.probeEvidence === undefined &&
      (await foundNothing(decl, ctx, table)) &&
      (await searchIds(decl, ctx))
    )
      await probeUpward(decl, ctx, table, failures);
  }

  const known = new Set(
    (await ctx.mirror.db.selectFrom(table).select('id').where('deleted_at', 'is', null).execute()).map((r) =>
      String(r.id),
    ),
  );
  const unread = async () => ctx.mirror.seenIds(decl.name, seenState.failed);
  // A known id answering 404 is evidence it is gone only when confirmed in this run and when this
  // run has seen the route answer a record; an id that could not be read is no evidence of
  // anything, and a pass with such ids is not complete: it deletes nothing.
  let gone: string[] = [];
  if ((await unread()).length === 0) {
    const candidates = (await ctx.mirror.seenIds(decl.name, seenState.missing)).filter((id) => known.has(id));
    gone = await confirmGone(decl, ctx, candidates, failures);
  }
  const failed = await unread();
  if (failed.length > 0) gone = [];
  await finishPass(ctx, { stream: decl.name, resource: decl.resource, table }, gone, {
    completed: pass.mode === 'full' && failed.length === 0 ? 'full' : 'other',
  });
  await recordFailures(decl, ctx, failed, failures.errors);
}

/**
 * The deletion evidence of an id stream: the known ids that answered 404 are asked once more in
 * this run (a 404 from a moment's confusion upstream, or left in the pass by a killed run, is no
 * evidence now); those found again are staged. The ids still 404 are returned as gone only when
 * this run has seen the route answer a record of the resource: a route that answers nothing (a
 * wrong base URL, a token that sees no records) is no evidence that anything is gone.
 */
async function confirmGone(
  decl: IdStreamDecl,
  ctx: StreamContext,
  candidates: string[],
  failures: FailureBudget,
): Promise<string[]> {
  if (candidates.length === 0) return [];
  // The witness first: without one, asking every 404 again (all of them, at a wrong URL) is waste.
  if (!(await witness(decl, ctx, candidates, failures))) {
    ctx.logger.warn(
      { ids: candidates.length, baseUrl: displayBaseUrl(ctx.client.baseUrl) },
      "known ids answered 404 but no record of this resource answered in this run: no evidence they are gone (check the base URL and the token's rights); nothing deleted",
    );
    return [];
  }
  const gone: string[] = [];
  await readWindow(
    ctx,
    candidates,
    (id) => fetchOne(decl, ctx, id, failures),
    async (page) => {
      for (const [id, r] of page) if (r === undefined) gone.push(id);
      await writeBatch(decl, ctx, page);
    },
  );
  return gone.sort(byId);
}

/** Neither the mirror nor this pass holds a record of the stream. */
async function foundNothing(
  decl: IdStreamDecl,
  ctx: StreamContext,
  table: ResourceTableName,
): Promise<boolean> {
  const row = await ctx.mirror.db.selectFrom(table).select('id').limit(1).executeTakeFirst();
  return row === undefined && (await oneSeenId(ctx, decl.name)) === undefined;
}

/** Where the search of an empty id stream looks: k × 10^n + 1 for n = 3..6, k = 1..99 (396 ids). */
export function idSearchCandidates(): number[] {
  const out: number[] = [];
  for (let n = 3; n <= 6; n++) for (let k = 1; k <= 99; k++) out.push(k * 10 ** n + 1);
  return out;
}

/**
 * An id stream that found no record from its start (sync.idStart) warns, naming the
 * setting, and asks a bounded set of ids where numbering commonly starts (idSearchCandidates), in
 * batches, until one answers: that record is staged, and probing goes on above it. Returns whether
 * one was found; either way the warning says what was tried and what to set.
 */
async function searchIds(decl: IdStreamDecl, ctx: StreamContext): Promise<boolean> {
  const start = ctx.options.idStart[decl.name];
  const candidates = idSearchCandidates();
  const failures = failureBudget(candidates.length);
  let found: string | undefined;
  // An answer that is no record of the resource ends the search, as it ends probing.
  const evidence = (id: string, err: ProtocolError) => noteEvidence(decl, ctx, id, err, undefined);
  for (
    let i = 0;
    i < candidates.length && found === undefined && ctx.stats.probeEvidence === undefined;
    i += ID_PAGE
  ) {
    const batch = candidates.slice(i, i + ID_PAGE).map(String);
    const results = await Promise.all(batch.map((id) => fetchOne(decl, ctx, id, failures, evidence)));
    const k = results.findIndex((r) => typeof r === 'object');
    const record = results[k];
    if (k >= 0 && typeof record === 'object') {
      found = batch[k];
      await stagePage(ctx, decl.name, decl.resource, [record]);
    }
    ctx.progress.add(batch.length);
    if (ctx.signal.aborted) throw new InterruptedError();
  }
  if (ctx.stats.probeEvidence !== undefined) return false;
  const tried = `ids ${start} to ${Number(start) + ctx.options.probeWindow - 1}, then k×10^n+1 (n 3..6, k 1..99)`;
  if (found === undefined)
    ctx.logger.warn(
      { stream: decl.name, tried },
      `no ${decl.resource} record found: set sync.idStart.${decl.name} (or --id-start ${decl.name}=ID) to an id that exists; ohs probe checks the service first`,
    );
  else
    ctx.logger.warn(
      { stream: decl.name, tried, found },
      `no ${decl.resource} record at sync.idStart (${start}); found one at ${found} and probed on from there: set sync.idStart.${decl.name} to your first id (ohs probe checks the service first)`,
    );
  return found !== undefined;
}

/**
 * Whether this run has seen the resource's route answer a record: if no id has yet, a few known
 * ids that did not answer 404 are asked (the highest first); one answering is the witness.
 */
async function witness(
  decl: IdStreamDecl,
  ctx: StreamContext,
  gone: string[],
  failures: FailureBudget,
): Promise<boolean> {
  if (ctx.evidence.live.has(decl.resource)) return true;
  const table = tableOf(decl.resource).table as ResourceTableName;
  const suspect = new Set(gone);
  const rows = await ctx.mirror.db
    .selectFrom(table)
    .select('id')
    .where('deleted_at', 'is', null)
    .orderBy('id', 'desc')
    .limit(WITNESSES + suspect.size)
    .execute();
  const ids = rows
    .map((r) => String(r.id))
    .filter((id) => !suspect.has(id))
    .slice(0, WITNESSES);
  for (const id of ids) {
    const r = await fetchOne(decl, ctx, id, failures);
    if (typeof r === 'object') {
      await stagePage(ctx, decl.name, decl.resource, [r]);
      return true;
    }
  }
  return false;
}

/** Known ids asked, at most, for a witness that the route answers. */
const WITNESSES = 3;

/**
 * Reads the ids through a sliding window: as many in flight as the client may have (its adaptive
 * concurrency, 16 at least), a new one asked as soon as one answers, never waiting for the slowest
 * of a batch (readWindow). The answers are written a page at a time, in the order they came, while
 * the next ones are fetched. Each id's outcome is noted with its record in one transaction, so an
 * id fetched but not written when the run dies is still `todo`: the next run asks it again.
 */
async function readBatches(
  decl: IdStreamDecl,
  ctx: StreamContext,
  todo: string[],
  failures: FailureBudget,
): Promise<void> {
  await readWindow(
    ctx,
    todo,
    (id) => fetchOne(decl, ctx, id, failures),
    (page) => writeBatch(decl, ctx, page),
  );
}

/** Keeps the ids this pass could not read for the next run; forgets those it read. */
async function recordFailures(
  decl: IdStreamDecl,
  ctx: StreamContext,
  failed: string[],
  errors: Map<string, string>,
): Promise<void> {
  const now = nowIso();
  await ctx.mirror.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('sync_failed_id').where('stream', '=', decl.name).execute();
    for (const id of failed) {
      await trx
        .insertInto('sync_failed_id')
        .values({
          stream: decl.name,
          id,
          error: errors.get(id) ?? 'could not be read after retries',
          failed_at: now,
        })
        .execute();
    }
  });
  ctx.stats.failedIds = failed.length;
  if (failed.length > 0)
    ctx.logger.warn(
      { failed: failed.length },
      'ids not read this run: asked again next run; no deletions this pass',
    );
}

/** Ids that other tables of the mirror refer to. */
async function referencedIds(decl: IdStreamDecl, ctx: StreamContext): Promise<string[]> {
  const ids: string[] = [];
  for (const ref of decl.refs) {
    const table = ref.table as ResourceTableName;
    if (ref.column !== undefined) {
      const rows = await ctx.mirror.db
        .selectFrom(table)
        .select(ref.column)
        .where(ref.column, 'is not', null)
        .execute();
      for (const r of rows) ids.push(String((r as Record<string, unknown>)[ref.column]));
    }
    if (ref.fromRaw !== undefined) {
      const rows = await ctx.mirror.db.selectFrom(table).select('raw').execute();
      for (const r of rows) {
        for (const id of ref.fromRaw(JSON.parse(r.raw) as Record<string, unknown>)) {
          if (typeof id === 'number' || typeof id === 'string') ids.push(String(id));
        }
      }
    }
  }
  return ids;
}

/**
 * The rotating re-read of an incremental run: the next `1/rereadRuns` of the id range (on the
 * stride), after the last id re-read, wrapping at the top; holes included, so a record that
 * appeared below the top (where probing never looks) is found within `rereadRuns` runs.
 */
async function rotation(
  decl: IdStreamDecl,
  ctx: StreamContext,
  table: ResourceTableName,
): Promise<{ ids: string[]; advance: Advance }> {
  const { low, top, stride } = await idLayout(ctx, table);
  if (low === undefined || top === undefined) return { ids: [], advance: async () => undefined };
  const slots = Math.floor((top - low) / stride) + 1;
  const share = Math.ceil(slots / Math.max(1, ctx.options.rereadRuns));
  const state = await ctx.mirror.db
    .selectFrom('sync_stream_state')
    .select('reread_cursor')
    .where('stream', '=', decl.name)
    .executeTakeFirst();
  const cursor = Number(state?.reread_cursor ?? Number.NaN);
  let slot =
    Number.isFinite(cursor) && cursor >= low && cursor < top ? Math.floor((cursor - low) / stride) + 1 : 0;
  const ids: string[] = [];
  let wrapped = false;
  for (let k = 0; k < share && k < slots; k++) {
    ids.push(String(low + slot * stride));
    slot++;
    if (slot >= slots) {
      slot = 0;
      wrapped = true;
    }
  }
  const last = ids.at(-1) ?? null;
  // Moved in the transaction that starts the pass, so a crash before it loses no share.
  const advance: Advance = (w) => w.setRereadCursor(decl.name, last, wrapped ? nowIso() : null);
  return { ids, advance };
}
