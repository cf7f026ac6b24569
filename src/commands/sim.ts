import type { Command } from 'commander';
import { defaultConfig } from '../config/index.js';
import { OhsError } from '../errors.js';
import { createLogger } from '../log.js';
import { simOptionsSchema, startSim } from '../sim/index.js';
import { untilSignal } from './context.js';
import { intArg } from './parse.js';
import { schemaFlags, schemaValues } from './schema-flags.js';

/** The sandbox's port is held by another process (an earlier sandbox still running). Exit status 1. */
export class PortInUseError extends OhsError {
  override name = 'PortInUseError';
  constructor(host: string, port: number) {
    super(
      'PORT_IN_USE',
      `port ${port} of ${host} is in use: stop what listens there (an earlier sandbox: kill its process; find it with ss -ltnp 'sport = :${port}'), or start this one with --port 0 and use the URL it prints as OHS_BASE_URL`,
    );
  }
}

interface ListenFlags {
  port: number;
  host: string;
}

/**
 * `ohs sim`: the sandbox of the service, until SIGINT or SIGTERM. Its settings' flags are
 * generated from the sandbox's schema (src/sim/options.ts); it listens where config/default.json's
 * baseUrl points, so `ohs sim` and `ohs sync` meet without configuration.
 */
export function registerSim(program: Command): void {
  const defaults = defaultConfig();
  const address = new URL(defaults.baseUrl);
  const command = program
    .command('sim')
    .description('run the sandbox of the service (seeded data, every operation, switchable gaps and faults)')
    .option('--port <n>', 'TCP port (0: a free one)', intArg(0, 65535), Number(address.port))
    .option('--host <addr>', 'interface to listen on', address.hostname);
  for (const option of schemaFlags(simOptionsSchema)) command.addOption(option);
  command
    .addHelpText(
      'after',
      '\nPrints the base URL on its first line, then serves until SIGINT or SIGTERM.\nExample: ohs sim --port 0 --envelope object --faults 0.2 --hooks',
    )
    .action(async (flags: ListenFlags & Record<string, unknown>, cmd: Command) => {
      const globals = cmd.optsWithGlobals<{ logLevel?: string; logFormat?: string; logFile?: string }>();
      // A server has no closing summary: `text` (as `pretty`) prints each line readable; none
      // given, readable on a terminal and NDJSON otherwise.
      const format =
        globals.logFormat === undefined ? undefined : globals.logFormat === 'json' ? 'json' : 'pretty';
      const logger = createLogger({
        level: globals.logLevel ?? defaults.logLevel,
        format,
        file: globals.logFile ?? null,
      });
      const sim = await startSim({
        ...schemaValues(simOptionsSchema, flags),
        port: flags.port,
        host: flags.host,
        onRequest: (info) => logger.debug(info, 'request'),
      }).catch((err: unknown) => {
        if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
          throw new PortInUseError(flags.host, flags.port);
        throw err;
      });
      // Listening for the stop before announcing the URL: a script that reads the first line and
      // then stops the sandbox must find it stoppable (a signal a moment earlier killed it).
      const stopped = untilSignal();
      process.stdout.write(`${sim.url}\n`);
      logger.info(
        {
          url: sim.url,
          scale: sim.options.scale,
          envelope: sim.options.envelope,
          pageCap: sim.options.pageCap,
          faultRate: sim.options.faultRate,
          rateLimit: sim.options.rateLimit,
          workers: sim.options.workers,
          serviceMs: sim.options.serviceMs,
          hooks: sim.options.hooks,
          orderItems: sim.tables.OrderItem.size,
        },
        'sandbox listening (stop with Ctrl-C)',
      );
      const signal = await stopped;
      logger.info({ signal, requests: sim.stats.requests }, 'sandbox stopping');
      await sim.close();
    });
}
