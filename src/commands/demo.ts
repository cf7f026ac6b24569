import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { sql } from 'kysely';
import { runJob } from '../../jobs/index.js';
import { today } from '../dates.js';
import { startSim } from '../sim/index.js';
import { commandContext } from './context.js';
import { openJobEnv } from './job-env.js';
import { numberArg } from './parse.js';

/**
 * `ohs demo`: the sandbox in-process on a free port, the nightly job against it into the mirror,
 * every report into out/, then where everything is and two queries to try; the sandbox stops.
 */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'start the built-in sandbox, run the nightly job into ohs.sqlite and out/, say where things are',
    )
    .option('--db <file>', 'the SQLite mirror (env OHS_DB)')
    .option('--out <dir>', 'where the reports go', 'out')
    .option(
      '--scale <x>',
      'size of the sandbox data (1: ~1,000 orgs, 30,000 order items)',
      numberArg(0.01, 10),
      1,
    )
    .action(async (flags: { out: string; scale: number }, cmd: Command) => {
      const { config: base, logger } = commandContext(cmd);
      const token = randomBytes(16).toString('hex');
      const started = Date.now();
      const sim = await startSim({
        port: 0,
        token,
        readonlyToken: randomBytes(16).toString('hex'),
        scale: flags.scale,
        anchorDate: today('UTC'),
      });
      // The sandbox's invoice, staff and applicant ids start where its data set says; a real
      // user knows them from their own invoice numbers and sets sync.idStart once.
      const first = (t: { all(): readonly { id: number | string }[] }) => t.all()[0]?.id ?? 1;
      const config = {
        ...base,
        baseUrl: sim.url,
        token,
        api: { ...base.api, requestsPerSecond: 5000, concurrency: 8 },
        sync: {
          ...base.sync,
          idStart: {
            invoice: first(sim.tables.Invoice),
            staff: first(sim.tables.Staff),
            applicant: first(sim.tables.Applicant),
          },
        },
        jobs: { ...base.jobs, outDir: flags.out },
      };
      logger.info({ sandbox: sim.url, db: config.db }, 'demo: sandbox started, running the nightly job');
      const abort = new AbortController();
      const stop = () => abort.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const env = await openJobEnv(config, logger, abort.signal);
      try {
        const r = await runJob('nightly', env, 'demo');
        if (r.error !== undefined) throw r.error;
        const count = async (table: 'orderitem' | 'invoice' | 'orgmonth' | 'user') =>
          Number(
            (
              await env.mirror.db
                .selectFrom(table)
                .select(sql<number>`count(*)`.as('n'))
                .where('deleted_at', 'is', null)
                .executeTakeFirst()
            )?.n ?? 0,
          );
        const db = resolve(config.db);
        const mode = (statSync(db).mode & 0o777).toString(8);
        const lines = [
          '',
          `ohs demo: done in ${((Date.now() - started) / 1000).toFixed(1)} s against the built-in sandbox (${sim.url}, now stopped).`,
          '',
          `Mirror   ${db}  (mode ${mode}; ${await count('orderitem')} order items, ${await count('invoice')} invoices, ${await count('orgmonth')} OrgMonth rows, ${await count('user')} users)`,
          'Reports',
          ...r.outputs.map((f) => `         ${resolve(f)}`),
          '',
          'Try these in sqlite3 or any BI tool (views v_*, table data_dictionary):',
          `  sqlite3 ${config.db} "select org, count(*) as open_orders from v_orderitem where is_open = 1 group by org order by 2 desc limit 10"`,
          `  sqlite3 ${config.db} "select org, count(*) as invoices, round(sum(balance), 2) as open_balance from v_invoice_open group by org order by 3 desc limit 10"`,
          '',
          'Next: ohs status, ohs report --list, ohs sync against your service (README: Configuration).',
          '',
        ];
        process.stdout.write(lines.join('\n'));
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        await env.close();
        await sim.close();
      }
    });
}
