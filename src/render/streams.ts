/**
 * Waiting on Node streams without leaking listeners: a report writes a million rows and may wait
 * for 'drain' thousands of times, so every wait removes what it added.
 */
export interface Emitter {
  once(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
}

/**
 * Resolves when `stream` emits 'drain'; rejects as soon as one of `watched` (the stream itself,
 * the file behind it) emits 'error', or 'close' before the drain.
 */
export function drained(stream: Emitter, watched: Emitter[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = (): void => {
      cleanup();
      resolve();
    };
    const onError = (err: unknown): void => {
      cleanup();
      reject(err);
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error('the output closed while the report was being written'));
    };
    const cleanup = (): void => {
      stream.removeListener('drain', onDrain);
      for (const w of watched) {
        w.removeListener('error', onError);
        w.removeListener('close', onClose);
      }
    };
    stream.once('drain', onDrain);
    for (const w of watched) {
      w.once('error', onError);
      w.once('close', onClose);
    }
  });
}

/** Rows from a synchronous or an asynchronous source, without a promise per row for the former. */
export async function forEachRow<T>(
  rows: Iterable<T> | AsyncIterable<T>,
  each: (row: T) => Promise<void> | undefined,
): Promise<number> {
  let n = 0;
  if (Symbol.asyncIterator in rows) {
    for await (const row of rows) {
      n++;
      const wait = each(row);
      if (wait !== undefined) await wait;
    }
  } else {
    for (const row of rows) {
      n++;
      const wait = each(row);
      if (wait !== undefined) await wait;
    }
  }
  return n;
}
