import type { Command } from 'commander';
import { copyMirrorInto } from '../mirror/index.js';
import { commandContext, openMirrorFor } from './context.js';

/** `ohs mirror copy --from DB --to DB`: a whole mirror into a new, empty one, across engines. */
export function registerMirror(program: Command): void {
  const mirror = program.command('mirror').description('the mirror itself (copy between engines)');
  mirror
    .command('copy')
    .description(
      'copy a whole mirror (records, history, runs, outbox, pass state) into a new, empty one: a SQLite file to PostgreSQL or back, without a re-sync',
    )
    .requiredOption('--from <db>', 'the mirror to copy: a SQLite file or postgres://user@host/db')
    .requiredOption('--to <db>', 'the new mirror: a SQLite file (created) or an empty PostgreSQL database')
    .addHelpText('after', '\nExample: ohs mirror copy --from ohs.sqlite --to postgres://ohs@db.example/ohs')
    .action(async (flags: { from: string; to: string }, cmd: Command) => {
      const { config, logger } = commandContext(cmd);
      // The source is migrated on open (so its rows have the columns the copy reads).
      const from = await openMirrorFor('write', config, flags.from);
      try {
        const to = await openMirrorFor('fill', config, flags.to);
        try {
          const counts = await copyMirrorInto(from, to);
          const rows = Object.values(counts).reduce((a, b) => a + b, 0);
          logger.info({ from: from.location, to: to.location, rows }, 'mirror copied');
          process.stdout.write(
            `copied ${rows} rows in ${Object.keys(counts).length} tables from ${from.location} to ${to.location}\n`,
          );
        } finally {
          await to.close();
        }
      } finally {
        await from.close();
      }
    });
}
