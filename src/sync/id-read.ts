import { ForbiddenError, NotFoundError, ProtocolError, UnauthorizedError } from '../api/index.js';
import type { SeenState } from '../mirror/index.js';
import { seenState } from '../mirror/index.js';
import { fieldsOf, operations } from '../schema/index.js';
import { stagePage } from './passes.js';
import type { IdStreamDecl, StreamContext } from './types.js';

// Reading one id of an id stream (id-runner.ts, id-probe.ts): the answer, its checks, and how a
// page of outcomes is noted in the pass.

type IR = IdStreamDecl['resource'];

/**
 * The stream's record check beyond the client's (an id of the right type, the id asked): a
 * record must carry a value in at least one field of its resource besides its id. An answer
 * with nothing but the id (`{"id": 7}`, `{"id": 7, "error": "not found"}`) is what a service
 * answering 200 for ids it does not hold sends; no invoice, staff or applicant record of the
 * service is without its fields. Returns what is wrong, or undefined.
 */
export function recordProblem(resource: IR, record: Record<string, unknown>): string | undefined {
  for (const f of fieldsOf(resource)) {
    if (f === 'id') continue;
    const v = record[f];
    if (v !== undefined && v !== null) return undefined;
  }
  return 'a record with no field but its id, not stored';
}

/**
 * The record of `id` (checked: the id asked, a record with fields), or undefined on 404. Throws
 * what the client throws, and a ProtocolError for a record failing the stream's check.
 */
export async function readOne(
  decl: IdStreamDecl,
  ctx: StreamContext,
  id: string,
): Promise<Record<string, unknown> | undefined> {
  try {
    const key = decl.resource === 'Invoice' ? id : Number(id);
    const record = await ctx.client.get(decl.resource as IR, key, 'all');
    const problem = recordProblem(decl.resource, record);
    if (problem !== undefined) {
      const path = operations[`get${decl.resource}`].path.replace('{id}', encodeURIComponent(id));
      throw new ProtocolError(problem, { method: 'GET', path });
    }
    ctx.evidence.live.add(decl.resource);
    return record;
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

export interface FailureBudget {
  left: number;
  errors: Map<string, string>;
}

/**
 * How many ids a pass may fail to read before the stream fails: one unlucky record must not stop
 * 3,000, but a service failing everything must not be asked 3,000 times 7 times over.
 */
export const failureBudget = (n: number): FailureBudget => ({
  left: Math.max(10, Math.ceil(n * 0.05)),
  errors: new Map(),
});

export type Fetched = Record<string, unknown> | undefined | 'failed';

/**
 * The record, undefined on 404, 'failed' when it could not be read after the client's retries.
 * With `evidence` (probing), an answer failing the record checks is handed to it and taken as no
 * record, instead of counting as a failure.
 */
export async function fetchOne(
  decl: IdStreamDecl,
  ctx: StreamContext,
  id: string,
  failures: FailureBudget,
  evidence?: (id: string, err: ProtocolError) => void,
): Promise<Fetched> {
  try {
    return await readOne(decl, ctx, id);
  } catch (err) {
    if (evidence !== undefined && err instanceof ProtocolError) {
      evidence(id, err);
      return undefined;
    }
    // Credentials do not heal by the next id: those fail the stream at once.
    if (err instanceof UnauthorizedError || err instanceof ForbiddenError) throw err;
    if (--failures.left < 0) throw err;
    failures.errors.set(id, err instanceof Error ? err.message : String(err));
    ctx.logger.warn(
      { id, error: err instanceof Error ? err.message : String(err) },
      'could not read a record; asked again next run',
    );
    return 'failed';
  }
}

/** Notes each outcome of a page of ids with the records staged. */
export async function writeBatch(
  decl: IdStreamDecl,
  ctx: StreamContext,
  page: [string, Fetched][],
  /** How a 404 is noted: a known id's (`missing`), or a probe's (`hole`). */
  notFound: SeenState = seenState.missing,
): Promise<void> {
  const found: Record<string, unknown>[] = [];
  const missing: string[] = [];
  const failed: string[] = [];
  for (const [id, r] of page) {
    if (r === undefined) missing.push(id);
    else if (r === 'failed') failed.push(id);
    else found.push(r);
  }
  await stagePage(ctx, decl.name, decl.resource, found, {
    also: async (w) => {
      await w.markSeen(decl.name, missing, notFound);
      await w.markSeen(decl.name, failed, seenState.failed);
    },
  });
  ctx.progress.add(page.length);
}
