import { mkdirSync } from 'node:fs';
import type { Command } from 'commander';
import { dashboardFor } from '../app/dashboard.js';
import { commandContext } from './context.js';
import { DB_OPTION_HELP } from './parse.js';

/** `ohs dashboard`: index.html of a report folder, from its HTML pages and the mirror's state. */
export function registerDashboard(program: Command): void {
  program
    .command('dashboard')
    .description(
      "write index.html in the report folder: each report's headline figures and status (from its HTML page), each stream's freshness, each job's last run",
    )
    .option('--db <db>', DB_OPTION_HELP)
    .option('--out <dir>', 'the report folder (default config jobs.outDir)')
    .addHelpText('after', '\nExample: ohs report all --format html && ohs dashboard --out out')
    .action(async (flags: { out?: string }, cmd: Command) => {
      const ctx = commandContext(cmd);
      const { config } = ctx;
      const mirror = await ctx.mirror('read');
      try {
        const dir = flags.out ?? config.jobs.outDir;
        mkdirSync(dir, { recursive: true });
        const file = await dashboardFor(mirror, dir, config.monitor.maxAge, ctx.logger, config.timezone);
        process.stdout.write(`${file}\n`);
      } finally {
        await mirror.close();
      }
    });
}
