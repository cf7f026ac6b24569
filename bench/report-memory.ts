import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openMirror } from '../src/mirror/index.js';
import { seedData } from '../src/sim/seed.js';

/**
 * Peak memory of `ohs report compliance` on a mirror of the sandbox at a scale (the
 * report walks org by org, so it must run in a 160 MB heap at 20x). The mirror is filled
 * straight from the sandbox's seed through the mirror's own writer (a sync at 20x takes long and
 * is not what is measured), once per scale, into DIR/mirror-SCALE.db; the report runs in a child
 * `node --max-old-space-size=HEAP bin/ohs.js`, whose peak RSS is read from `/usr/bin/time -v`.
 *
 *   node dist/bench/report-memory.js DIR SCALE [HEAP_MB] [REPORT]
 */
const run = promisify(execFile);
const [dir = '/tmp/ohs-report-memory', scaleText = '4', heapText = '160', report = 'compliance'] =
  process.argv.slice(2);
const scale = Number(scaleText);
mkdirSync(dir, { recursive: true });
const db = join(dir, `mirror-${scale}.db`);
const NOW = '2026-06-15T02:00:00.000Z';

if (!existsSync(db)) {
  const t = performance.now();
  const { tables } = seedData({ seed: 1, scale, anchorDate: '2026-06-15' });
  const m = await openMirror(db);
  for (const resource of ['OrgMonth', 'Invoice', 'OrderItem'] as const) {
    const all: readonly Record<string, unknown>[] = tables[resource].all();
    for (let i = 0; i < all.length; i += 2000)
      await m.write((w) => w.upsert(resource, all.slice(i, i + 2000), { now: NOW }).then(() => undefined));
  }
  await m.close();
  process.stdout.write(`filled ${db} in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
}
const bin = fileURLToPath(new URL('../../bin/ohs.js', import.meta.url));
const t = performance.now();
const { stderr } = await run(
  '/usr/bin/time',
  [
    '-v',
    process.execPath,
    `--max-old-space-size=${heapText}`,
    bin,
    'report',
    report,
    '--as-of',
    '2026-06-15',
    '--db',
    db,
    '--out',
    join(dir, `out-${scale}`),
  ],
  { maxBuffer: 1 << 26 },
);
const peak = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? 0) / 1024;
const rows = /(\d+) detail rows?/.exec(stderr)?.[1];
process.stdout.write(
  `${report} at scale ${scale}: ${rows} detail rows, ${((performance.now() - t) / 1000).toFixed(1)} s, peak RSS ${peak.toFixed(0)} MB (heap cap ${heapText} MB)\n`,
);
