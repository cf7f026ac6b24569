import { type Command, Option } from 'commander';
import { createLogger } from '../log.js';
import { faultKinds, type SimOptionsInput, startSim, writeOperations } from '../sim/index.js';
import { untilSignal } from './context.js';
import { intArg, listArg, numberArg } from './parse.js';

interface SimFlags extends Omit<SimOptionsInput, 'faultRate'> {
  faults: number;
  port: number;
  host: string;
  logLevel?: string;
}

/** `ohs sim`: the sandbox of the service, until SIGINT or SIGTERM. */
export function registerSim(program: Command): void {
  program
    .command('sim')
    .description('run the sandbox of the service (seeded data, every operation, switchable gaps and faults)')
    .option('--port <n>', 'TCP port (0: a free one)', intArg(0, 65535), 8787)
    .option('--host <addr>', 'interface to listen on', '127.0.0.1')
    .option('--prefix <path>', 'path prefix of the service, e.g. /api', '')
    .option('--token <t>', 'bearer token that may read and write', 'sim-write-token')
    .option('--readonly-token <t>', 'bearer token that may only read', 'sim-read-token')
    .option('--seed <n>', 'seed of the data, faults and mutations', intArg(0), 1)
    .option(
      '--scale <x>',
      'size of the data set (1: ~1,000 orgs, 30,000 order items)',
      numberArg(0.001, 100),
      1,
    )
    .option('--anchor-date <yyyy-mm-dd>', "the data set's today (default: today)")
    .addOption(
      new Option('--envelope <kind>', 'list responses: bare array or object with a total')
        .choices(['array', 'object'])
        .default('array'),
    )
    .option('--envelope-key <key>', 'key of the records in object envelopes', 'data')
    .option('--total-key <key>', 'key of the total in object envelopes', 'total')
    .option('--page-cap <n>', 'largest pageSize honoured, silently (0: none)', intArg(0), 250)
    .addOption(
      new Option('--default-order <order>', 'order when no sortBy is sent')
        .choices(['hash', 'id'])
        .default('hash'),
    )
    .option('--fields-param <name>', 'name of the GET field-selection parameter', 'fields')
    .addOption(
      new Option('--delete-answer <status>', 'answer of DELETE').choices(['204', '200']).default('204'),
    )
    .option('--lean', 'default responses omit computed c_* fields', false)
    .addOption(
      new Option('--string-case <mode>', 'string operators')
        .choices(['insensitive', 'sensitive'])
        .default('insensitive'),
    )
    .addOption(
      new Option(
        '--list-contains <reading>',
        'how listContains reads a list (any: one of its items matches; whole: the value as a whole)',
      )
        .choices(['any', 'whole'])
        .default('any'),
    )
    .option('--no-strict-bodies', 'accept unknown fields in action bodies')
    .option('--rate-limit <rps>', 'requests per second before 429 (0: off)', numberArg(0), 0)
    .option('--rate-burst <n>', 'burst of the rate limit (default: one second)', intArg(0), 0)
    .option('--retry-after <s>', 'Retry-After seconds sent with 429', intArg(0), 1)
    .addOption(
      new Option('--rate-headers <form>', 'RateLimit headers describing the rate limit')
        .choices(['none', 'draft', 'combined', 'x'])
        .default('none'),
    )
    .option('--load-knee <rps>', 'requests per second above which latency grows (0: off)', numberArg(0), 0)
    .option('--load-latency-ms <ms>', 'added latency per knee of requests/s above the knee', intArg(0), 100)
    .option('--faults <rate>', 'share of requests that fail with an injected fault, 0..1', numberArg(0, 1), 0)
    .option('--fault-kinds <list>', `comma-separated: ${faultKinds.join(', ')}`, listArg(faultKinds))
    .option('--hang-ms <ms>', 'how long a hang fault holds a request', intArg(0), 5000)
    .option(
      '--late-write-rate <rate>',
      'share of writes answered 504 at once and carried out later, 0..1',
      numberArg(0, 1),
      0,
    )
    .option(
      '--late-write-ops <list>',
      `writes a late write may hit: ${writeOperations.join(', ')}`,
      listArg(writeOperations),
    )
    .option(
      '--late-write-min-ms <ms>',
      'a late write is carried out this long after its 504, at least',
      intArg(0),
      100,
    )
    .option('--late-write-max-ms <ms>', '... and at most', intArg(0), 800)
    .option(
      '--slow-write-rate <rate>',
      'share of writes carried out at once and answered after --slow-write-ms, 0..1',
      numberArg(0, 1),
      0,
    )
    .option(
      '--slow-write-ops <list>',
      `writes a slow write may hit: ${writeOperations.join(', ')}`,
      listArg(writeOperations),
    )
    .option(
      '--slow-write-ms <ms>',
      'how long a slow write holds its answer (above the client timeout)',
      intArg(0),
      35000,
    )
    .option('--latency-ms <ms>', 'added to every response', intArg(0), 0)
    .option('--latency-jitter-ms <ms>', 'random extra latency, up to', intArg(0), 0)
    .option('--trickle-ms <ms>', 'send each response body one byte every N ms (0: off)', intArg(0), 0)
    .option('--mutate-every-ms <ms>', 'live mutation of the data every N ms (0: off)', intArg(0), 0)
    .option('--mutate-every-requests <n>', 'live mutation every N requests (0: off)', intArg(0), 0)
    .option('--mutation-size <n>', 'changes of each kind per mutation step', intArg(1), 5)
    .option('--record-requests', 'keep every service request for the hook GET __sim/requests', false)
    .option(
      '--hooks',
      'enable the test hooks under {prefix}/__sim/ (truth, stats, mutate, config): unauthenticated, they hand out the write token and SSNs; refused with a non-loopback --host',
      false,
    )
    .option(
      '--hostile',
      'hostile data: non-string SSNs and birth dates, formula and escape-sequence names, 1e309, huge errors',
      false,
    )
    .addHelpText(
      'after',
      '\nPrints the base URL on its first line, then serves until SIGINT or SIGTERM.\nExample: ohs sim --port 0 --envelope object --faults 0.2 --hooks',
    )
    .action(async (flags: SimFlags, cmd: Command) => {
      const globals = cmd.optsWithGlobals<{ logLevel?: string }>();
      const logger = createLogger({ level: globals.logLevel ?? 'info' });
      const { port, host, logLevel: _ignored, faults, ...simOptions } = flags;
      const sim = await startSim({
        ...simOptions,
        faultRate: faults,
        port,
        host,
        onRequest: (info) => logger.debug(info, 'request'),
      });
      process.stdout.write(`${sim.url}\n`);
      logger.info(
        {
          url: sim.url,
          scale: sim.options.scale,
          envelope: sim.options.envelope,
          pageCap: sim.options.pageCap,
          faultRate: sim.options.faultRate,
          rateLimit: sim.options.rateLimit,
          hooks: sim.options.hooks,
          orderItems: sim.tables.OrderItem.size,
        },
        'sandbox listening (stop with Ctrl-C)',
      );
      const signal = await untilSignal();
      logger.info({ signal, requests: sim.stats.requests }, 'sandbox stopping');
      await sim.close();
    });
}
