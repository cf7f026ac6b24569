import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnSandbox, table } from './sandbox.js';

/**
 * `npm run bench -- scale [--scale X]`: a full `ohs sync --full` of the sandbox at 4x and 20x its
 * default size (times X; env `OHS_BENCH_SCALES=4,20` picks the sizes), then each report on that
 * mirror in a 160 MB heap (`node --max-old-space-size=160`), every one a child process whose
 * seconds and peak RSS are read from `/usr/bin/time -v`. The sandbox answers at once, in its own
 * process. Targets: peak RSS of each at 20x within 1.5x of 4x, every report within the
 * 160 MB heap at 20x. About 9 minutes on the shared 2-core machine (20x: about 1.2M records).
 */
const run = promisify(execFile);
export const TOKEN = 'bench-token';
const ID_START = { invoice: 240001, staff: 6001, applicant: 9001 } as const;
const REPORTS = ['compliance', 'unpaid-invoices', 'order-ageing'] as const;
export const HEAP_MB = 160;
/** api.deadlineFloorMs for the sync (see atScale). */
const DEADLINE_FLOOR_MS = 300_000;
const bin = fileURLToPath(new URL('../../bin/ohs.js', import.meta.url));

export interface Measured {
  code: number;
  seconds: number;
  peakMb: number;
  tail: string;
}

/** `node [flags] bin/ohs.js args` (or another build's `ohs`) in `cwd` under `/usr/bin/time -v`. */
export async function timed(cwd: string, nodeFlags: string[], args: string[], ohs = bin): Promise<Measured> {
  const started = performance.now();
  let code = 0;
  let stderr = '';
  try {
    ({ stderr } = await run('/usr/bin/time', ['-v', process.execPath, ...nodeFlags, ohs, ...args], {
      cwd,
      env: { ...process.env, OHS_TOKEN: TOKEN },
      maxBuffer: 1 << 26,
    }));
  } catch (err) {
    const e = err as { code?: number; stderr?: string };
    code = typeof e.code === 'number' ? e.code : 1;
    stderr = e.stderr ?? String(err);
  }
  const peakKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? 0);
  const status = Number(/Exit status: (\d+)/.exec(stderr)?.[1] ?? code);
  const tail = stderr.split('\n').filter((l) => l.startsWith('ohs:') || l.includes('heap'))[0] ?? '';
  return {
    code: status,
    seconds: (performance.now() - started) / 1000,
    peakMb: Math.round(peakKb / 1024),
    tail,
  };
}

/**
 * A working folder for `ohs` against the sandbox at `url`: its config (the bench's id starts, the
 * sync's deadline floor raised, see below), in `cwd`.
 */
export function benchWorkdir(cwd: string, url: string): void {
  mkdirSync(join(cwd, 'config'), { recursive: true });
  writeFileSync(
    join(cwd, 'config', 'local.json'),
    // A whole list's attempt has the adaptive deadline of any request (at least api.deadlineFloorMs,
    // 30 s): at 20x on a loaded machine the org-month list (120 MB) took longer, twice, and the
    // sync stopped with NETWORK. Raised here so that the figures can be taken; see bench/README.md.
    JSON.stringify({
      baseUrl: url,
      logLevel: 'warn',
      sync: { idStart: ID_START },
      api: { deadlineFloorMs: DEADLINE_FLOOR_MS },
    }),
  );
}

async function atScale(scale: number, dir: string): Promise<Record<string, Measured>> {
  const sb = await spawnSandbox(['--scale', String(scale), '--token', TOKEN, '--anchor-date', '2026-06-15']);
  const cwd = join(dir, `x${scale}`);
  try {
    benchWorkdir(cwd, sb.url);
    const out: Record<string, Measured> = { sync: await timed(cwd, [], ['sync', '--full']) };
    if (out.sync?.code !== 0) return out;
    for (const r of REPORTS) {
      const args = ['report', r, '--as-of', '2026-06-15', '--present', '--out', join(cwd, 'out'), '--quiet'];
      out[r] = await timed(cwd, [`--max-old-space-size=${HEAP_MB}`], args);
    }
    return out;
  } finally {
    await sb.stop();
  }
}

export async function benchScale(factor: number): Promise<string> {
  const scales = (process.env.OHS_BENCH_SCALES ?? '4,20').split(',').map((s) => Number(s) * factor);
  const dir = mkdtempSync(join(tmpdir(), 'ohs-bench-scale-'));
  try {
    const results = new Map<number, Record<string, Measured>>();
    const loads: string[] = [];
    for (const s of scales) {
      results.set(s, await atScale(s, dir));
      loads.push(`${s}x: load ${loadavg()[0]?.toFixed(1)}`);
    }
    const [small, large] = scales;
    const rows = ['sync', ...REPORTS].map((name) => {
      const row: Record<string, string | number> = { run: name === 'sync' ? 'ohs sync --full' : name };
      for (const s of scales) {
        const m = results.get(s)?.[name];
        row[`${s}x s`] = m === undefined ? '-' : m.seconds.toFixed(1);
        row[`${s}x MB`] = m === undefined ? '-' : m.code === 0 ? m.peakMb : `exit ${m.code}`;
      }
      const a = small === undefined ? undefined : results.get(small)?.[name];
      const b = large === undefined ? undefined : results.get(large)?.[name];
      row['RSS ratio'] =
        a !== undefined && b !== undefined && a.code === 0 && b.code === 0
          ? (b.peakMb / a.peakMb).toFixed(2)
          : '-';
      return row;
    });
    const failures = [...results.entries()].flatMap(([s, r]) =>
      Object.entries(r)
        .filter(([, m]) => m.code !== 0)
        .map(([name, m]) => `  ${name} at ${s}x exit ${m.code}: ${m.tail}`),
    );
    return [
      `Scale: full sync and each report (reports in a ${HEAP_MB} MB heap) at ${scales.join('x and ')}x the sandbox's size (${loads.join(', ')}; target: RSS at the larger within 1.5x of the smaller, every report within the heap)`,
      table(rows),
      ...failures,
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
