import { benchChangesMemory } from './changes-memory.js';
import { benchChecks } from './checks.js';
import { benchClient } from './client.js';
import { benchHistory } from './history.js';
import { benchMirror } from './mirror.js';
import { benchRate } from './rate.js';
import { benchRender } from './render.js';
import { benchRenderHtml } from './render-html.js';
import { benchReports } from './reports.js';
import { benchScale } from './scale.js';
import { benchSeam } from './seam.js';
import { benchSqliteDrivers } from './sqlite-drivers.js';
import { benchSync } from './sync.js';
import { benchWriteback } from './writeback.js';

/**
 * `npm run bench [-- NAME...] [--scale X]`: runs the benchmarks and prints their figures, each as
 * a ratio against a baseline measured in the same run. Performance is measured here, never in
 * timed tests.
 */
const benches: Record<string, (scale: number) => Promise<string>> = {
  'changes-memory': benchChangesMemory,
  checks: benchChecks,
  client: benchClient,
  history: benchHistory,
  mirror: benchMirror,
  rate: benchRate,
  render: benchRender,
  'render-html': (scale) => benchRenderHtml(scale),
  reports: benchReports,
  scale: benchScale,
  seam: benchSeam,
  'sqlite-drivers': benchSqliteDrivers,
  sync: benchSync,
  writeback: benchWriteback,
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const scaleAt = args.indexOf('--scale');
  const scale = scaleAt >= 0 ? Number(args[scaleAt + 1]) : 1;
  const names = args.filter((a, i) => !a.startsWith('--') && (scaleAt < 0 || i !== scaleAt + 1));
  const chosen = names.length > 0 ? names : Object.keys(benches);
  for (const name of chosen) {
    const bench = benches[name];
    if (bench === undefined)
      throw new Error(`unknown benchmark '${name}' (have: ${Object.keys(benches).join(', ')})`);
    process.stdout.write(`${await bench(scale)}\n\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
