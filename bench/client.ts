import { request } from 'undici';
import { and, fieldsOf, operations, where } from '../src/schema/index.js';
import { configuredClient, measure, spawnScaledSandbox, table } from './sandbox.js';

/**
 * Full OrderItem scan against the sandbox (in its own process), at concurrency 1, 4 and 8: the
 * typed client (p-queue, retries, metrics, envelope handling) beside a bare `undici.request`
 * keyset loop over the same id partitions in the same run (the ceiling).
 */
const TOKEN = 'bench-token';
const PAGE = 250;

async function idBounds(url: string): Promise<{ min: number; max: number }> {
  const ask = async (dir: 'asc' | 'desc') => {
    const res = await request(`${url}${operations.queryOrderItem.path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sortBy: 'id', sortDirection: dir, pageSize: 1, return: ['id'] }),
    });
    const [row] = (await res.body.json()) as { id: number }[];
    return row?.id ?? 0;
  };
  return { min: await ask('asc'), max: await ask('desc') };
}

function partitions(min: number, max: number, n: number): [number, number][] {
  const step = Math.ceil((max - min + 1) / n);
  return Array.from({ length: n }, (_, i) => [min - 1 + i * step, Math.min(max, min - 1 + (i + 1) * step)]);
}

async function bareScan(url: string, parts: [number, number][]): Promise<number> {
  const path = `${url}${operations.queryOrderItem.path}`;
  const fields = fieldsOf('OrderItem');
  const counts = await Promise.all(
    parts.map(async ([after, atMost]) => {
      let last = after;
      let n = 0;
      for (;;) {
        const body = {
          advancedFilter: and(where('id', 'greaterThan', last), where('id', 'lessThanOrEqualTo', atMost)),
          return: fields,
          isAdditionalData: true,
          sortBy: 'id',
          sortDirection: 'asc',
          page: 1,
          pageSize: PAGE,
        };
        const res = await request(path, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const rows = (await res.body.json()) as { id: number }[];
        if (rows.length === 0) return n;
        n += rows.length;
        last = rows[rows.length - 1]?.id ?? last;
      }
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

async function clientScan(url: string, parts: [number, number][], concurrency: number): Promise<number> {
  const client = configuredClient(url, TOKEN, { concurrency, requestsPerSecond: 100_000, pageSize: PAGE });
  try {
    const counts = await Promise.all(
      parts.map(async ([after, atMost]) => {
        let n = 0;
        for await (const page of client.scan('OrderItem', { after, atMost })) n += page.records.length;
        return n;
      }),
    );
    return counts.reduce((a, b) => a + b, 0);
  } finally {
    await client.close();
  }
}

export async function benchClient(scale: number): Promise<string> {
  const sandbox = await spawnScaledSandbox(scale, TOKEN);
  try {
    const { min, max } = await idBounds(sandbox.url);
    await bareScan(sandbox.url, partitions(min, max, 2)); // warm-up: JIT, connections
    const rows: Record<string, string | number>[] = [];
    for (const concurrency of [1, 4, 8]) {
      const parts = partitions(min, max, concurrency);
      // Best of three rounds each, interleaved, so a passing hiccup does not decide the ratio.
      const bareRuns = [];
      const ourRuns = [];
      for (let round = 0; round < 3; round++) {
        bareRuns.push(await measure(() => bareScan(sandbox.url, parts)));
        ourRuns.push(await measure(() => clientScan(sandbox.url, parts, concurrency)));
      }
      const best = <T extends { seconds: number }>(runs: T[]) =>
        runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
      const bare = best(bareRuns);
      const ours = best(ourRuns);
      if (bare.result !== ours.result)
        throw new Error(`record counts differ: bare ${bare.result}, client ${ours.result}`);
      const bareRate = bare.result / bare.seconds;
      const ourRate = ours.result / ours.seconds;
      rows.push({
        concurrency,
        records: ours.result,
        'bare rec/s': Math.round(bareRate),
        'client rec/s': Math.round(ourRate),
        'client/bare': `${((100 * ourRate) / bareRate).toFixed(1)}%`,
        'bare peak MB': bare.peakRssMb,
        'client peak MB': ours.peakRssMb,
      });
    }
    return `Client: full OrderItem scan, sandbox scale ${scale}, page ${PAGE}\n${table(rows)}`;
  } finally {
    await sandbox.stop();
  }
}
