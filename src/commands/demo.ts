import { statSync } from 'node:fs';
import { basename, extname, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import { dashboardFor } from '../app/dashboard.js';
import { claimForDemo, demoCounts, demoDefaults, startDemo } from '../app/demo.js';
import { runJob } from '../app/jobs.js';
import { redactTarget } from '../mirror/index.js';
import { simOptionsSchema } from '../sim/index.js';
import { printSummary } from '../terminal.js';
import { commandContext, type GlobalFlags, mirrorMayExist, openMirrorFor } from './context.js';
import { openJobEnv } from './job-env.js';
import { numberArg } from './parse.js';
import { asInvoked, jobLines, summaryLines, withSummary } from './summary.js';

/** The files written, counted by kind: `6 xlsx, 8 csv, 6 html, 6 summary.json, index.html`. */
function filesByKind(files: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const f of files) {
    const name = basename(f);
    const kind =
      name === 'index.html' ? name : name.endsWith('.summary.json') ? 'summary.json' : extname(name).slice(1);
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].map(([kind, n]) => (kind === 'index.html' ? kind : `${n} ${kind}`)).join(', ');
}

/**
 * `ohs demo`: the sandbox in-process on a free port, the nightly job against it into the mirror,
 * every report into out/, then where everything is and two queries to try; the sandbox stops.
 */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      `start the built-in sandbox, run the nightly job into ${demoDefaults.db} and ${demoDefaults.out}/, say where things are`,
    )
    .option(
      '--db <file>',
      `the demo's mirror: a SQLite file or postgres:// URL (default ${demoDefaults.db}; OHS_DB and config db are ignored; a mirror filled from a service is refused); give a PostgreSQL password through ~/.pgpass (PGPASSFILE), never in --db: the command line is visible to every user in ps`,
    )
    .option('--out <dir>', 'where the reports go', demoDefaults.out)
    .option(
      '--scale <x>',
      'size of the sandbox data (1: ~1,000 orgs, 30,000 order items)',
      numberArg(0.01, 10),
      // The sandbox's own default size (its schema).
      simOptionsSchema.shape.scale.parse(undefined),
    )
    .action(async (flags: { out: string; scale: number }, cmd: Command) => {
      const { config: loaded, logger } = commandContext(cmd);
      withSummary();
      // Only an explicit --db names the demo's file: OHS_DB and config db point at the real mirror.
      const base = { ...loaded, db: cmd.optsWithGlobals<GlobalFlags>().db ?? demoDefaults.db };
      if (mirrorMayExist(base.db)) {
        // Refuse before the sandbox generates its data set; claimed again below for a new file.
        const existing = await openMirrorFor('fill', base);
        try {
          await claimForDemo(existing);
        } finally {
          await existing.close();
        }
      }
      const started = Date.now();
      const { sim, config } = await startDemo(base, flags.scale, flags.out);
      logger.info(
        { sandbox: sim.url, db: redactTarget(config.db) },
        'demo: sandbox started, running the nightly job',
      );
      const abort = new AbortController();
      const stop = () => abort.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      // Opened inside the try: a mirror that cannot be opened (a missing folder) still stops the
      // sandbox and the signal handlers, so the command exits instead of hanging on the server.
      let closeEnv = async (): Promise<void> => undefined;
      try {
        const env = await openJobEnv(config, logger, abort.signal, 'fill');
        closeEnv = () => env.close();
        await claimForDemo(env.mirror);
        const r = await runJob('nightly', env, 'demo');
        if (r.error !== undefined) throw r.error;
        const counts = await demoCounts(env.mirror);
        const pg = env.mirror.engine === 'postgres';
        const db = pg ? env.mirror.location : resolve(config.db);
        const mode = pg ? 'PostgreSQL' : `mode ${(statSync(db).mode & 0o777).toString(8)}`;
        // psql takes the connection string (without its password: ~/.pgpass or PGPASSWORD).
        const shell = pg ? `psql '${env.mirror.location}' -c` : `sqlite3 ${config.db}`;
        const job = await jobLines(env.mirror, { job: 'nightly', ...r }, (Date.now() - started) / 1000);
        // The dashboard again, now that the job's run is recorded as ended: the one the job wrote
        // listed it as running.
        if (job.dashboard !== undefined)
          await dashboardFor(env.mirror, resolve(flags.out), config.monitor.maxAge, logger, config.timezone);
        const dashboard = job.dashboard ?? resolve(flags.out, 'index.html');
        const lines = [
          '',
          `ohs demo: done in ${((Date.now() - started) / 1000).toFixed(1)} s against the built-in sandbox (${sim.url}, now stopped).`,
          '',
          `Mirror   ${db}  (${mode}; ${counts.orderitem} order items, ${counts.invoice} invoices, ${counts.orgmonth} OrgMonth rows, ${counts.user} users)`,
          `Reports  ${resolve(flags.out)}${sep} (${r.outputs.length} files: ${filesByKind(r.outputs)})`,
          '',
          `Try these in ${pg ? 'psql' : 'sqlite3'} or any BI tool (views v_*, table data_dictionary):`,
          `  ${shell} "select org, count(*) as open_orders from v_orderitem where is_open = 1 group by org order by 2 desc limit 10"`,
          `  ${shell} "select org, count(*) as invoices, round(sum(balance), 2) as open_balance from v_invoice_open group by org order by 3 desc limit 10"`,
          '',
          ...summaryLines({
            did: job.did,
            attention: job.attention,
            next: `${asInvoked('status')} --db ${pg ? `'${db}'` : config.db}; ${asInvoked('sync')} against your service (README: Point it at your service)`,
          }),
          '(node bin/ohs.js runs this checkout\'s ohs, never a package of the registry; to type plain `ohs`, put it on the PATH: npm link, or a symlink to bin/ohs.js: README "`ohs` on the PATH".)',
          '',
          `Open the dashboard in a browser: ${dashboard}`,
        ];
        printSummary(lines);
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        await closeEnv();
        await sim.close();
      }
    });
}
