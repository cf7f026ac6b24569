import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface ExternalSortOptions {
  /** Items held in memory at once; each full run past the first is spilled to a file. */
  chunkSize: number;
  /** Where the private temporary directory is made. @default os.tmpdir() */
  dir?: string;
}

/**
 * Sorts a stream of JSON values in bounded memory (a million order items must not be held at
 * once): runs of `chunkSize` items are sorted and written to temporary files, then merged. The
 * files may hold personal data (names), so they live in a fresh directory only this process can
 * read (mkdtemp gives 0700, files are 0600) and are removed when iteration ends or is abandoned.
 * `compare` must order every pair (no ties between distinct items) for a stable result.
 */
export async function* externalSort<T>(
  source: AsyncIterable<T>,
  compare: (a: T, b: T) => number,
  options: ExternalSortOptions,
): AsyncGenerator<T> {
  let buffer: T[] = [];
  const files: string[] = [];
  let dir: string | undefined;
  const runs: AsyncIterator<T>[] = [];
  try {
    for await (const item of source) {
      buffer.push(item);
      if (buffer.length >= options.chunkSize) {
        dir ??= await mkdtemp(join(options.dir ?? tmpdir(), 'ohs-sort-'));
        buffer.sort(compare);
        const file = join(dir, `run-${files.length}.ndjson`);
        await writeFile(file, `${buffer.map((x) => JSON.stringify(x)).join('\n')}\n`, { mode: 0o600 });
        files.push(file);
        buffer = [];
      }
    }
    buffer.sort(compare);
    if (files.length === 0) {
      yield* buffer;
      return;
    }
    for (const f of files) runs.push(readRun<T>(f));
    runs.push(arrayRun(buffer));
    yield* merge(runs, compare);
  } finally {
    for (const r of runs) await r.return?.();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }
}

async function* readRun<T>(file: string): AsyncGenerator<T> {
  const input = createReadStream(file, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) if (line !== '') yield JSON.parse(line) as T;
  } finally {
    lines.close();
    input.destroy();
  }
}

async function* arrayRun<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

interface Head<T> {
  value: T;
  run: number;
}

/** k-way merge of sorted runs with a binary heap (ties: the earlier run first). */
async function* merge<T>(runs: AsyncIterator<T>[], compare: (a: T, b: T) => number): AsyncGenerator<T> {
  const heap: Head<T>[] = [];
  const less = (a: Head<T>, b: Head<T>) => {
    const c = compare(a.value, b.value);
    return c < 0 || (c === 0 && a.run < b.run);
  };
  const push = (h: Head<T>) => {
    heap.push(h);
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(heap[i] as Head<T>, heap[p] as Head<T>)) break;
      [heap[i], heap[p]] = [heap[p] as Head<T>, heap[i] as Head<T>];
      i = p;
    }
  };
  const pop = (): Head<T> => {
    const top = heap[0] as Head<T>;
    const last = heap.pop() as Head<T>;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && less(heap[l] as Head<T>, heap[m] as Head<T>)) m = l;
        if (r < heap.length && less(heap[r] as Head<T>, heap[m] as Head<T>)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m] as Head<T>, heap[i] as Head<T>];
        i = m;
      }
    }
    return top;
  };
  for (let run = 0; run < runs.length; run++) {
    const next = await (runs[run] as AsyncIterator<T>).next();
    if (!next.done) push({ value: next.value, run });
  }
  while (heap.length > 0) {
    const top = pop();
    yield top.value;
    const next = await (runs[top.run] as AsyncIterator<T>).next();
    if (!next.done) push({ value: next.value, run: top.run });
  }
}
