import { InterruptedError, type StreamContext } from './types.js';

// How an id stream asks its ids (id-runner.ts): a sliding window over the client's adaptive
// concurrency, its answers handed on in pages while the fetching goes on.

/** Ids per page of answers handed on, and the least kept in flight. */
export const ID_PAGE = 16;

/**
 * Fetches `ids` with up to the client's concurrency (16 at least) in flight, starting the next id
 * as each answers, and hands the answers on in pages of 16 or more (what came while the page
 * before was written), one write at a time, while the fetching goes on: a killed run loses what
 * is in flight and less than a page of answers. Before (batches of the concurrency,
 * each waiting for its slowest answer), a full sync reached 0.62 of a flat loop at 20 ms of
 * latency. Stops (InterruptedError) after the page under way when the run is interrupted; leaves
 * no request of its own in flight behind it, whatever ends it.
 */
export async function readWindow<T>(
  ctx: StreamContext,
  ids: readonly string[] | (() => string | undefined),
  fetch: (id: string) => Promise<T>,
  write: (page: [string, T][]) => Promise<void>,
  /**
   * Hand the answers on in the order the ids were asked: a page never holds an id whose lower
   * neighbours are not written yet (a low-water mark). Probing needs it: a resumed run probes on
   * above the highest id written, so a lower one answered but lost with the run would never be
   * asked again.
   */
  inOrder = false,
): Promise<void> {
  let at = 0;
  // A list, or a source that may give more ids once answers came (probing: see probeUpward).
  const nextId = typeof ids === 'function' ? ids : () => (at < ids.length ? ids[at++] : undefined);
  const width = () => Math.max(ID_PAGE, ctx.client.transport.concurrency);
  const inFlight = new Set<Promise<void>>();
  let ready: [string, T][] = [];
  // In order: answers waiting for a lower one, by the sequence in which they were asked.
  const early = new Map<number, [string, T]>();
  let asked = 0;
  let handed = 0;
  const answered = (seq: number, answer: [string, T]) => {
    if (!inOrder) {
      ready.push(answer);
      return;
    }
    early.set(seq, answer);
    for (let a = early.get(handed); a !== undefined; a = early.get(handed)) {
      early.delete(handed++);
      ready.push(a);
    }
  };
  let failure: { err: unknown } | undefined;
  // Woken by each answer (one promise, not a race over every request in flight per answer).
  let wake: (() => void) | undefined;
  const woken = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  let writing: Promise<void> | undefined;
  const flush = async () => {
    // One write at a time: the next page waits for the one under way.
    if (writing !== undefined) await writing;
    const page = ready;
    ready = [];
    writing = page.length === 0 ? undefined : write(page);
    // Awaited below (its error ends the read); handled now, so no rejection goes unnoticed meanwhile.
    writing?.catch(() => undefined);
  };
  try {
    for (;;) {
      while (inFlight.size < width() && !ctx.signal.aborted) {
        const id = nextId();
        if (id === undefined) break;
        const seq = asked++;
        const p: Promise<void> = fetch(id).then(
          (r) => {
            inFlight.delete(p);
            answered(seq, [id, r]);
            woken();
          },
          (err: unknown) => {
            inFlight.delete(p);
            failure ??= { err };
            woken();
          },
        );
        inFlight.add(p);
      }
      if (inFlight.size === 0) break;
      // Less than a page come: wait for the next answer (one is in flight), then ask again.
      if (ready.length < ID_PAGE && failure === undefined)
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      if (failure !== undefined) throw failure.err;
      if (ready.length >= ID_PAGE || inFlight.size === 0) await flush();
    }
    await flush();
    if (writing !== undefined) await writing;
    if (ctx.signal.aborted) throw new InterruptedError();
  } finally {
    await Promise.allSettled(inFlight);
    if (writing !== undefined) await writing.catch(() => undefined);
  }
}

/** Awaits both, whatever either does; then throws the first one's error, if any. */
export async function settleBoth(a: Promise<void>, b: Promise<void>): Promise<void> {
  const [x, y] = await Promise.allSettled([a, b]);
  if (x.status === 'rejected') throw x.reason;
  if (y.status === 'rejected') throw y.reason;
}
