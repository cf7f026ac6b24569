import type { Command } from 'commander';
import { writePacket } from '../app/packet.js';
import { resolveAsOf } from '../dates.js';
import { UsageError } from '../errors.js';
import { commandContext } from './context.js';
import { DB_OPTION_HELP } from './parse.js';

interface PacketFlags {
  org: string;
  year: string;
  asOfTime?: string;
  out?: string;
}

/** `ohs packet --org N --year Y`: the audit packet of one employer and year (src/app/packet.ts). */
export function registerPacket(program: Command): void {
  program
    .command('packet')
    .description(
      'the audit packet of one employer and year: compliance rows, evidence, policies, catch-up plan, sync runs, a cover page and MANIFEST.sha256, in one folder',
    )
    .requiredOption('--org <id>', 'the employer (org id)')
    .requiredOption('--year <year>', 'the compliance year')
    .option(
      '--as-of-time <instant>',
      "the mirror as it stood at this instant, ISO 8601 (default: the mirror's latest data)",
    )
    .option('--out <dir>', 'where the packet folder goes (default config jobs.outDir)')
    .option('--db <db>', DB_OPTION_HELP)
    .addHelpText(
      'after',
      '\nExample:\n  ohs packet --org 1001 --year 2026 --as-of-time 2026-06-30T23:59:59Z --out audit',
    )
    .action(async (flags: PacketFlags, cmd: Command) => {
      if (!/^\d+$/.test(flags.org))
        throw new UsageError(`--org '${flags.org}': expected a whole-number org id`);
      if (!/^\d{4}$/.test(flags.year))
        throw new UsageError(`--year '${flags.year}': expected a year such as 2026`);
      const ctx = commandContext(cmd);
      const { config } = ctx;
      const asOf =
        flags.asOfTime === undefined ? undefined : resolveAsOf({ instant: flags.asOfTime }, config.timezone);
      const mirror = await ctx.mirror('read');
      try {
        const packet = await writePacket(mirror, config, {
          orgId: Number(flags.org),
          year: Number(flags.year),
          ...(asOf === undefined ? {} : { asOf }),
          outDir: flags.out ?? config.jobs.outDir,
        });
        process.stdout.write(`${packet.dir}\n`);
      } finally {
        await mirror.close();
      }
    });
}
