import { Command, CommanderError, Option } from 'commander';
import { DB_OPTION_HELP } from './commands/parse.js';
import { logLevels } from './config/log-levels.js';
import { diskFullError } from './disk-full.js';
import { describeError, isOhsError, MAX_ERROR_CHARS, UsageError } from './errors.js';
import { flushAttention } from './terminal.js';
import { didYouMean } from './util/closest.js';
import { maskText } from './util/mask.js';
import { packageVersion } from './util/package-root.js';
import { printable } from './util/printable.js';

/** A module of `src/commands/` and the commands it registers. */
interface CommandModule {
  readonly names: readonly string[];
  readonly load: () => Promise<(program: Command) => void>;
}

/**
 * Every module of commands, in the order `ohs --help` lists them. A command line loads only the
 * module of the command it runs (each imports much: kysely, undici, zod, sim, reports...), so
 * `ohs status` does not pay for the sandbox and the write-back; help, an unknown command or no
 * command loads them all. A new command: one line here (a name missing from this table still
 * works, through loading everything).
 */
export const commandModules: readonly CommandModule[] = [
  { names: ['demo'], load: async () => (await import('./commands/demo.js')).registerDemo },
  { names: ['init'], load: async () => (await import('./commands/init.js')).registerInit },
  { names: ['config'], load: async () => (await import('./commands/config.js')).registerConfig },
  { names: ['sim'], load: async () => (await import('./commands/sim.js')).registerSim },
  { names: ['probe'], load: async () => (await import('./commands/probe.js')).registerProbe },
  { names: ['sync'], load: async () => (await import('./commands/sync.js')).registerSync },
  { names: ['status'], load: async () => (await import('./commands/status.js')).registerStatus },
  { names: ['dashboard'], load: async () => (await import('./commands/dashboard.js')).registerDashboard },
  { names: ['policy'], load: async () => (await import('./commands/policy.js')).registerPolicy },
  { names: ['mirror'], load: async () => (await import('./commands/mirror.js')).registerMirror },
  {
    names: ['plan', 'apply', 'outbox'],
    load: async () => (await import('./commands/writeback.js')).registerWriteback,
  },
  { names: ['report'], load: async () => (await import('./commands/report.js')).registerReport },
  { names: ['packet'], load: async () => (await import('./commands/packet.js')).registerPacket },
  { names: ['run'], load: async () => (await import('./commands/run.js')).registerRun },
  { names: ['cron'], load: async () => (await import('./commands/cron.js')).registerCron },
];

/** The program with its global options and no command. */
function bareProgram(): Command {
  const program = new Command('ohs')
    .description(
      'Mirror the Occupational Health and Screening Service into SQLite or PostgreSQL, report on it, write changes back.',
    )
    .version(packageVersion(), '-V, --version')
    .option('--config <file>', 'configuration file (default ./config/local.json)')
    .addOption(new Option('--log-level <level>', 'log level').choices(logLevels))
    .addOption(
      new Option(
        '--log-format <format>',
        'text: a closing summary, warnings grouped by kind (default); json: every log line as NDJSON on stderr; pretty: every line, readable',
      ).choices(['text', 'json', 'pretty']),
    )
    .option('--log-file <file>', 'append every log line as JSON to this file (config logFile)')
    .option('-q, --quiet', 'print nothing but a failure (exit code only)')
    .option('--base-url <url>', 'base URL of the service (env OHS_BASE_URL)')
    .option('--token-file <file>', 'file holding the bearer token (env OHS_TOKEN_FILE; or OHS_TOKEN)')
    // Also declared by each command that uses it (for its --help); here so `ohs --db x status` works.
    .option('--db <db>', DB_OPTION_HELP)
    .exitOverride()
    .configureOutput({ outputError: () => {} });
  return program;
}

/**
 * The modules a command line needs: the one of the command it names (after the global options
 * and their values; `ohs help X` is X's), none for a lone `--version`, every module otherwise
 * (help, no command, an unknown command or option, anything unusual before the command).
 */
function modulesFor(program: Command, args: readonly string[]): readonly CommandModule[] {
  if (args.length === 1 && (args[0] === '-V' || args[0] === '--version')) return [];
  const words: string[] = [];
  for (let i = 0; i < args.length && words.length < 2; i++) {
    const arg = args[i] ?? '';
    if (arg.startsWith('-') && words.length === 0) {
      const option = program.options.find((o) => o.long === arg || o.short === arg);
      // `--help` before the command, `--`, `--x=y`, an unknown option: load everything.
      if (option === undefined) return commandModules;
      if (option.required || option.optional) i++;
      continue;
    }
    if (arg.startsWith('-')) break;
    words.push(arg);
  }
  const name = words[0] === 'help' ? words[1] : words[0];
  const module = commandModules.find((m) => name !== undefined && m.names.includes(name));
  return module === undefined ? commandModules : [module];
}

/**
 * `ohs report --list | head -1`: when whoever reads standard output goes away, the command ends
 * quietly with exit 0, as a Unix tool killed by SIGPIPE would (Node ignores SIGPIPE and reports
 * EPIPE as an error event instead, which would otherwise crash with a stack trace). Work already
 * committed stays committed; a command half-way through a write transaction rolls it back on exit.
 */
function exitQuietlyWhenReaderGoes(): void {
  if (process.stdout.listenerCount('error') > 0) return;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

/**
 * The `ohs` program with the commands `args` (the command line after `node ohs`) needs
 * registered: only the one it runs, so start-up loads only that command's code; with no
 * `args`, every command.
 */
export async function buildProgram(args?: readonly string[]): Promise<Command> {
  const program = bareProgram();
  const modules = args === undefined ? commandModules : modulesFor(program, args);
  const registers = await Promise.all(modules.map((m) => m.load()));
  for (const register of registers) register(program);
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
 * Commander's message on one line: its suggestion (`\n(Did you mean sync?)`) joined to it, and a
 * "did you mean" for a value outside an option's choices (`--op paymnt`).
 */
export function commanderMessage(message: string): string {
  const line = message
    .replace(/^error: /, '')
    .replace(/\s*\n\s*\(Did you mean (.*)\?\)\s*$/, ' (did you mean $1?)')
    .replace(/\s*\n\s*/g, ' ');
  const choice = /argument '([^']*)' is invalid\. Allowed choices are (.*)\.$/.exec(line);
  if (choice === null) return line;
  return `${line.slice(0, -1)}${didYouMean(choice[1] ?? '', (choice[2] ?? '').split(', '))}.`;
}

/**
 * Runs the CLI; returns the exit status. Every failure is one line on stderr,
 * `ohs: CODE: message`, and the status of its class (2 for usage and configuration).
 */
export async function main(argv: readonly string[]): Promise<number> {
  exitQuietlyWhenReaderGoes();
  const program = await buildProgram(argv.slice(2));
  const help = ['ohs', ...commandPath(program, argv.slice(2)), '--help'].join(' ');
  try {
    await program.parseAsync([...argv]);
    // A command may set its own status (`status --check`: the monitoring-plugin codes).
    return Number(process.exitCode ?? 0);
  } catch (thrown) {
    // A full disk is DISK_FULL with what to do, whatever layer met it (SQLite, fs, PostgreSQL).
    const err = diskFullError(thrown, commandPath(program, argv.slice(2))) ?? thrown;
    if (err instanceof CommanderError) {
      if (
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.code === 'commander.help'
      ) {
        return 0;
      }
      const usage = new UsageError(commanderMessage(err.message));
      process.stderr.write(`ohs: ${usage.code}: ${describeError(usage)} (see ${help})\n`);
      return usage.exitCode;
    }
    if (isOhsError(err)) {
      const see = err instanceof UsageError ? ` (see ${help})` : '';
      process.stderr.write(`ohs: ${err.code}: ${describeError(err)}${see}\n`);
      // Input errors list every problem, one per line, after the one-line summary.
      if (Array.isArray(err.detail))
        for (const line of err.detail)
          process.stderr.write(`  ${printable(maskText(String(line)), MAX_ERROR_CHARS)}\n`);
      return err.exitCode;
    }
    process.stderr.write(`ohs: INTERNAL: ${describeError(err)}\n`);
    if (process.env.OHS_DEBUG) process.stderr.write(`${(err as Error).stack ?? ''}\n`);
    return 1;
  } finally {
    // Warnings a command did not put in a summary, grouped; after a failure's own line.
    flushAttention();
  }
}
