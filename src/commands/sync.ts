import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { createClient, verifyService } from '../api/index.js';
import { pruneAfterSync, syncOptions } from '../app/sync.js';
import { InputError } from '../errors.js';
import { redactTarget } from '../mirror/index.js';
import { assertStreamNames, runSync, streamNames, streams } from '../sync/index.js';
import { commandContext, mirrorMayExist, shareRateBudget } from './context.js';
import { DB_OPTION_HELP } from './parse.js';
import { asInvoked, printClosingSummary, syncRunLines, withSummary } from './summary.js';

interface SyncFlags {
  full: boolean;
  allowMassDelete: boolean;
  restartPasses: boolean;
  ids: string[];
  idStart: string[];
  progress: boolean;
}

const idStreams: readonly string[] = streams.filter((s) => s.kind === 'ids').map((s) => s.name);

/** Commander parser of a repeatable STREAM=ID option (`--id-start invoice=240001`). */
export function pairArg(value: string, previous: string[] = []): string[] {
  const m = /^([a-z]+)=(.+)$/.exec(value);
  if (m === null || !idStreams.includes(m[1] ?? '')) {
    throw new InvalidArgumentError(`expected STREAM=VALUE with STREAM one of ${idStreams.join(', ')}.`);
  }
  return [...previous, value];
}

/** Ids from a file: one per line; blank lines and lines starting with # are skipped. */
export function readIdFile(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(`${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const ids: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const id = line.trim();
    if (id === '' || id.startsWith('#')) return;
    if (!/^[A-Za-z0-9_-]+$/.test(id))
      throw new InputError(`${file}:${i + 1}: id: '${id.slice(0, 40)}' is not an id`);
    ids.push(id);
  });
  return ids;
}

/** `ohs sync [STREAM...]`: fills and refreshes the mirror. */
export function registerSync(program: Command): void {
  program
    .command('sync')
    .description('sync the service into the mirror (SQLite or PostgreSQL) (incremental by default)')
    .argument('[streams...]', `streams to sync (default all: ${streamNames.join(', ')})`)
    .option('--db <db>', DB_OPTION_HELP)
    .option('--full', 'a complete pass: re-read everything, soft-delete what is gone', false)
    .option('--allow-mass-delete', 'let a pass soft-delete more than sync.massDeleteShare of a table', false)
    .option(
      '--restart-passes',
      'drop unfinished passes first and re-read (the safe way out of a MASS_DELETE left by a bad run)',
      false,
    )
    .option('--ids <stream=file>', 'more ids for an id stream, one per line (repeatable)', pairArg)
    .option('--id-start <stream=id>', 'first id to probe when the mirror knows none (repeatable)', pairArg)
    .option('--no-progress', 'no progress bars, even on a terminal')
    .addHelpText(
      'after',
      '\nExamples:\n  ohs sync\n  ohs sync orderitem invoice --full\n  ohs sync invoice --ids invoice=open-invoices.txt',
    )
    .action(async (names: string[], flags: SyncFlags, cmd: Command) => {
      const ctx = commandContext(cmd);
      const { config, logger } = ctx;
      withSummary();
      const extraIds: Record<string, string[]> = {};
      for (const pair of flags.ids ?? []) {
        const [stream = '', file = ''] = pair.split(/=(.*)/s);
        extraIds[stream] = [...(extraIds[stream] ?? []), ...readIdFile(file)];
      }
      const idStart = { ...config.sync.idStart };
      for (const pair of flags.idStart ?? []) {
        const [stream = '', id = ''] = pair.split(/=(.*)/s);
        idStart[stream as keyof typeof idStart] = id;
      }
      assertStreamNames(names);
      const client = createClient(config, logger);
      // No mirror yet: the service check first, so that a wrong URL or token creates nothing, not
      // even an empty mirror. On a mirror, the run makes the same check and records its failure.
      const checkFirst = !mirrorMayExist(config.db);
      if (checkFirst)
        await verifyService(client).catch(async (err: unknown) => {
          await client.close();
          throw err;
        });
      const mirror = await ctx.mirror('fill');
      shareRateBudget(client, mirror);
      const abort = new AbortController();
      const stop = (signal: NodeJS.Signals) => {
        if (abort.signal.aborted) process.exit(130);
        logger.warn({ signal }, 'stopping after the page under way (again to quit at once)');
        abort.abort();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      try {
        const report = await runSync(client, mirror, logger, {
          streams: names,
          full: flags.full,
          allowMassDelete: flags.allowMassDelete,
          restartPasses: flags.restartPasses,
          ...syncOptions(config),
          idStart,
          extraIds,
          signal: abort.signal,
          serviceChecked: checkFirst,
          progress: flags.progress && process.stderr.isTTY === true,
        });
        const m = client.metrics();
        logger.info(
          {
            run: report.runId,
            outcome: report.outcome,
            requests: m.requests,
            retries: m.retries,
            latencyMs: m.latencyMs,
            rate: m.rate,
            concurrency: m.concurrency,
            db: mirror.location,
          },
          `sync ${report.outcome}`,
        );
        if (report.error !== undefined) throw report.error;
        if (report.outcome === 'ok') await pruneAfterSync(mirror, config, logger);
        const run = await syncRunLines(mirror, report.runId);
        printClosingSummary({
          did: [run.did, `mirror ${redactTarget(mirror.location)}`],
          attention: run.incomplete,
          next:
            report.outcome === 'interrupted'
              ? `${asInvoked('sync')} (it resumes where this run stopped)`
              : run.incomplete.length > 0
                ? `${asInvoked('sync')} again (it goes on where this run stopped); ${asInvoked('status')} shows what is incomplete`
                : `${asInvoked('status')}; ${asInvoked('report all')}`,
        });
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        await client.close();
        await mirror.close();
      }
    });
}
