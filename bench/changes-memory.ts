import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSandbox, table } from './sandbox.js';
import { benchWorkdir, HEAP_MB, type Measured, TOKEN, timed } from './scale.js';

/**
 * `npm run bench -- changes-memory [--scale X]`: peak RSS of `ohs report changes` next to the order
 * ageing's, at 4x and 20x the sandbox's default size (times X; `OHS_BENCH_SCALES=4,20`). Per
 * scale: `ohs sync --full` of the sandbox, the instant after it (the period's start: both ends
 * hold every record), a second sync, then each report in a child `node
 * --max-old-space-size=160` under `/usr/bin/time -v` (seconds and peak RSS): the order ageing
 * (its external sort keeps memory bounded: the yardstick) and what changed over the period (the
 * base reports' figures at both ends). `OHS_BENCH_BIN_BEFORE` (another build's `bin/ohs.js`,
 * e.g. an earlier commit's) runs what changed once more on the same mirror: the figure before a
 * change. Target: what changed within 1.2x of the order ageing's peak RSS at both sizes.
 */
export async function benchChangesMemory(factor: number): Promise<string> {
  const scales = (process.env.OHS_BENCH_SCALES ?? '4,20').split(',').map((s) => Number(s) * factor);
  const before = process.env.OHS_BENCH_BIN_BEFORE;
  // Both reports in one heap: the scale bench's (HEAP_MB), or OHS_BENCH_HEAP_MB to see the peak
  // of a report that would not fit in it.
  const heapMb = Number(process.env.OHS_BENCH_HEAP_MB) || HEAP_MB;
  const dir = mkdtempSync(join(tmpdir(), 'ohs-bench-changes-'));
  const rows: Record<string, string | number>[] = [];
  try {
    for (const scale of scales) {
      const sb = await spawnSandbox([
        '--scale',
        String(scale),
        '--token',
        TOKEN,
        '--anchor-date',
        '2026-06-15',
      ]);
      const cwd = join(dir, `x${scale}`);
      try {
        benchWorkdir(cwd, sb.url);
        const sync = await timed(cwd, [], ['sync', '--full']);
        if (sync.code !== 0) {
          rows.push({ scale: `${scale}x`, 'order ageing': `sync exit ${sync.code}: ${sync.tail}` });
          continue;
        }
        // The period starts after the first sync (to the next whole second): both ends hold it all.
        const since = new Date(Math.ceil((Date.now() + 1000) / 1000) * 1000);
        await new Promise((r) => setTimeout(r, since.getTime() + 500 - Date.now()));
        await timed(cwd, [], ['sync']);
        const heap = [`--max-old-space-size=${heapMb}`];
        const report = (name: string, extra: string[], ohs?: string) =>
          timed(cwd, heap, ['report', name, ...extra, '--out', join(cwd, 'out'), '--quiet'], ohs);
        const ageing = await report('order-ageing', []);
        const changes = await report('changes', ['--since', since.toISOString()]);
        const old =
          before === undefined
            ? undefined
            : await report('changes', ['--since', since.toISOString()], before);
        const said = (m: Measured) =>
          m.code === 0 ? `${m.seconds.toFixed(1)} s / ${m.peakMb} MB` : `exit ${m.code}: ${m.tail}`;
        rows.push({
          scale: `${scale}x`,
          'order ageing': said(ageing),
          'what changed': said(changes),
          'RSS / order ageing':
            ageing.code === 0 && changes.code === 0 ? (changes.peakMb / ageing.peakMb).toFixed(2) : '-',
          ...(old === undefined
            ? {}
            : {
                'what changed, before': said(old),
                'before / order ageing':
                  ageing.code === 0 && old.code === 0 ? (old.peakMb / ageing.peakMb).toFixed(2) : '-',
              }),
          load: loadavg()[0]?.toFixed(1) ?? '-',
        });
      } finally {
        await sb.stop();
      }
    }
    return [
      `What changed: peak RSS next to the order ageing's (each in a ${heapMb} MB heap) at ${scales.join('x and ')}x the sandbox's size (target: within 1.2x)`,
      table(rows),
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
