import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnScaledSandbox, table } from './sandbox.js';

/**
 * `npm run bench -- reports [--scale X]`: `ohs report all` against the three base reports
 * (compliance, unpaid-invoices, order-ageing) run one after another, each a child process, on a
 * mirror of the sandbox synced in full at its default size and at 4x (times X; env
 * `OHS_BENCH_SCALES=1,4` picks the sizes). Each is run three times, alternating, and the median
 * taken. Target: `report all` within 1.35x of the three base reports, at both sizes (the reports
 * built on the others reuse their results within the run instead of building them again).
 * `OHS_BENCH_BIN` runs another build's `bin/ohs.js` (a copy of an earlier commit's build, to take
 * the figures before a change in the same run).
 */
const run = promisify(execFile);
const TOKEN = 'bench-token';
const ID_START = { invoice: 240001, staff: 6001, applicant: 9001 } as const;
const BASE = ['compliance', 'unpaid-invoices', 'order-ageing'] as const;
const ROUNDS = 3;
const bin = process.env.OHS_BENCH_BIN ?? fileURLToPath(new URL('../../bin/ohs.js', import.meta.url));

/** Seconds of `ohs args` in `cwd`; throws with its stderr when it fails. */
async function seconds(cwd: string, args: string[]): Promise<number> {
  const started = performance.now();
  await run(process.execPath, [bin, ...args], {
    cwd,
    env: { ...process.env, OHS_TOKEN: TOKEN },
    maxBuffer: 1 << 26,
  });
  return (performance.now() - started) / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

interface AtScale {
  syncS: number;
  allS: number;
  baseS: number;
  each: Record<string, number>;
}

async function atScale(scale: number, dir: string): Promise<AtScale> {
  const sb = await spawnScaledSandbox(scale, TOKEN);
  const cwd = join(dir, `x${scale}`);
  try {
    mkdirSync(join(cwd, 'config'), { recursive: true });
    writeFileSync(
      join(cwd, 'config', 'local.json'),
      JSON.stringify({ baseUrl: sb.url, logLevel: 'warn', sync: { idStart: ID_START } }),
    );
    const syncS = await seconds(cwd, ['sync', '--full']);
    // The sandbox's anchor date, read as the present: the figures every report shows.
    const report = (name: string) => [
      'report',
      name,
      '--as-of',
      '2026-06-15',
      '--present',
      '--out',
      join(cwd, 'out'),
      '--quiet',
    ];
    const all: number[] = [];
    const base: number[] = [];
    const each: Record<string, number[]> = {};
    for (let i = 0; i < ROUNDS; i++) {
      all.push(await seconds(cwd, report('all')));
      let sum = 0;
      for (const name of BASE) {
        const s = await seconds(cwd, report(name));
        const list = each[name] ?? [];
        list.push(s);
        each[name] = list;
        sum += s;
      }
      base.push(sum);
    }
    return {
      syncS,
      allS: median(all),
      baseS: median(base),
      each: Object.fromEntries(Object.entries(each).map(([k, v]) => [k, median(v)])),
    };
  } finally {
    await sb.stop();
  }
}

export async function benchReports(factor: number): Promise<string> {
  const scales = (process.env.OHS_BENCH_SCALES ?? '1,4').split(',').map((s) => Number(s) * factor);
  const dir = mkdtempSync(join(tmpdir(), 'ohs-bench-reports-'));
  try {
    const rows: Record<string, string | number>[] = [];
    for (const s of scales) {
      const r = await atScale(s, dir);
      rows.push({
        scale: `${s}x`,
        'sync s': r.syncS.toFixed(1),
        ...Object.fromEntries(Object.entries(r.each).map(([k, v]) => [`${k} s`, v.toFixed(2)])),
        'three base s': r.baseS.toFixed(2),
        'report all s': r.allS.toFixed(2),
        ratio: (r.allS / r.baseS).toFixed(2),
        load: loadavg()[0]?.toFixed(1) ?? '-',
      });
    }
    return [
      `Reports: \`ohs report all\` against the three base reports one after another (median of ${ROUNDS}, child processes; target: ratio <= 1.35 at each size)`,
      table(rows),
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
