import { Command, CommanderError, Option } from 'commander';
import { registerCron } from './commands/cron.js';
import { registerDemo } from './commands/demo.js';
import { registerMirror } from './commands/mirror.js';
import { registerPolicy } from './commands/policy.js';
import { registerProbe } from './commands/probe.js';
import { registerReport } from './commands/report.js';
import { registerRun } from './commands/run.js';
import { registerSim } from './commands/sim.js';
import { registerStatus } from './commands/status.js';
import { registerSync } from './commands/sync.js';
import { registerWriteback } from './commands/writeback.js';
import { logLevels } from './config/index.js';
import { describeError, isOhsError, UsageError } from './errors.js';
import { packageVersion } from './util/package-root.js';

/** The `ohs` program with every command registered. */
export function buildProgram(): Command {
  const program = new Command('ohs')
    .description(
      'Mirror the Occupational Health and Screening Service into SQLite, report on it, write changes back.',
    )
    .version(packageVersion(), '-V, --version')
    .option('--config <file>', 'configuration file (default ./config/local.json)')
    .addOption(new Option('--log-level <level>', 'log level').choices(logLevels))
    .option('--base-url <url>', 'base URL of the service (env OHS_BASE_URL)')
    .option('--token-file <file>', 'file holding the bearer token (env OHS_TOKEN_FILE; or OHS_TOKEN)')
    // Also declared by each command that uses it (for its --help); here so `ohs --db x status` works.
    .option('--db <db>', 'the mirror: a SQLite file or postgres://user@host/db (env OHS_DB)')
    .exitOverride()
    .configureOutput({ outputError: () => {} });
  registerDemo(program);
  registerSim(program);
  registerProbe(program);
  registerSync(program);
  registerStatus(program);
  registerPolicy(program);
  registerMirror(program);
  registerWriteback(program);
  registerReport(program);
  registerRun(program);
  registerCron(program);
  for (const cmd of program.commands) cmd.exitOverride().configureOutput({ outputError: () => {} });
  return program;
}

/**
 * The command a command line runs (`['policy', 'import']` for `ohs --db x policy import f.csv`),
 * skipping options and their values, so a usage error can point to that command's --help.
 */
export function commandPath(program: Command, args: readonly string[]): string[] {
  const path: string[] = [];
  let current = program;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') break;
    if (arg.startsWith('-')) {
      const option = [...current.options, ...program.options].find((o) => o.long === arg || o.short === arg);
      if (option !== undefined && (option.required || option.optional) && !option.variadic) i++;
      continue;
    }
    const sub = current.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (sub === undefined) break;
    path.push(sub.name());
    current = sub;
  }
  return path;
}

/**
 * Runs the CLI; returns the exit status. Every failure is one line on stderr,
 * `ohs: CODE: message`, and the status of its class (2 for usage and configuration).
 */
export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  const help = ['ohs', ...commandPath(program, argv.slice(2)), '--help'].join(' ');
  try {
    await program.parseAsync([...argv]);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.code === 'commander.help'
      ) {
        return 0;
      }
      const usage = new UsageError(err.message.replace(/^error: /, ''));
      process.stderr.write(`ohs: ${usage.code}: ${usage.message} (see ${help})\n`);
      return usage.exitCode;
    }
    if (isOhsError(err)) {
      const see = err instanceof UsageError ? ` (see ${help})` : '';
      process.stderr.write(`ohs: ${err.code}: ${err.message}${see}\n`);
      // Input errors list every problem, one per line, after the one-line summary.
      if (Array.isArray(err.detail))
        for (const line of err.detail) process.stderr.write(`  ${String(line)}\n`);
      return err.exitCode;
    }
    process.stderr.write(`ohs: INTERNAL: ${describeError(err)}\n`);
    if (process.env.OHS_DEBUG) process.stderr.write(`${(err as Error).stack ?? ''}\n`);
    return 1;
  }
}
