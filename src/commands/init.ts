import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { createClient, verifyService } from '../api/index.js';
import { type Config, loadConfig, localConfigPath } from '../config/index.js';
import { ConfigError, OhsError } from '../errors.js';
import { createLogger } from '../log.js';
import { writeFileSafelySync } from '../util/safe-file.js';
import { configFlags } from './context.js';
import { asInvoked } from './summary.js';
import { pairArg } from './sync.js';

/** `ohs init` would replace a config or token file that is there: refused without --force. Exit status 2. */
export class InitExistsError extends OhsError {
  override name = 'InitExistsError';
  override readonly exitCode = 2;
  constructor(file: string) {
    super(
      'INIT_EXISTS',
      `${file} is there already: ohs init leaves it as it is (see it in effect with ohs config; replace it with ohs init --force)`,
    );
  }
}

interface InitFlags {
  force: boolean;
  idStart: string[];
}

/** The token given on standard input (a pipe or a file, never a terminal), trimmed; none when empty. */
function tokenFromStdin(): string | undefined {
  if (process.stdin.isTTY === true) return undefined;
  let text: string;
  try {
    text = readFileSync(0, 'utf8');
  } catch {
    return undefined; // no standard input at all (closed)
  }
  const token = text.trim();
  return token === '' ? undefined : token;
}

/** The config `ohs init` writes: JSON with `//` comments (the loader reads them), every line saying what it is. */
function configText(config: Config, tokenFile: string | undefined, when: string): string {
  const q = (v: unknown) => JSON.stringify(v);
  const lines = [
    `// ohs-mirror configuration, written by \`ohs init\` at ${when}.`,
    '// JSON with // comments. Later wins: config/default.json < this file < environment (OHS_*) < flags.',
    '// Every key and its default: docs/configuration.md. What is in effect, and from where: ohs config.',
    '{',
    '  // The service (checked by ohs init: it answered as the service).',
    `  "baseUrl": ${q(config.baseUrl)},`,
    tokenFile === undefined
      ? '  // No token file: give the token with OHS_TOKEN or OHS_TOKEN_FILE (never in this file).'
      : '  // The bearer token is read from this file (mode 0600); never write the token itself here.',
    ...(tokenFile === undefined ? [] : [`  "tokenFile": ${q(tokenFile)},`]),
    '  // The mirror: a SQLite file, or postgres://user@host/db (its password in OHS_DB or ~/.pgpass).',
    `  "db": ${q(config.db)},`,
    '  // The reporting and scheduling time zone (an IANA name: UTC, America/Chicago).',
    `  "timezone": ${q(config.timezone)},`,
    '  "api": {',
    '    // Requests per second across every process on the mirror: "auto" (no limit set) finds the',
    "    // service's limit and keeps under it; a number is a ceiling (the rate your agreement allows).",
    `    "requestsPerSecond": ${q(config.api.requestsPerSecond)}`,
    '  },',
    '  "sync": {',
    '    // First id to probe per id stream on an empty mirror (invoices, staff and applicants have no',
    '    // list operation); ask the service for its first ids. Left at 1, ohs sync warns and searches.',
    `    "idStart": ${q(config.sync.idStart)}`,
    '  },',
    '  "jobs": {',
    '    // Where reports are written, and in which formats (xlsx, csv, html; html adds the dashboard).',
    `    "outDir": ${q(config.jobs.outDir)},`,
    `    "formats": ${q(config.jobs.formats)}`,
    '  }',
    '}',
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * `ohs init`: writes config/local.json (or the --config file), commented, and the token given on
 * standard input into a token file of mode 0600, after checking the service in one request; prints
 * what it found and the next three commands. An existing file is left alone without --force;
 * nothing is written when the check fails.
 */
export function registerInit(program: Command): void {
  program
    .command('init')
    .description(
      'write a commented config/local.json (and a 0600 token file from a token on standard input) after checking the service; prints the next three commands',
    )
    .option('--force', 'replace a config or token file that is there', false)
    .option(
      '--id-start <stream=id>',
      "an id stream's first id, written as sync.idStart (repeatable)",
      pairArg,
    )
    .addHelpText(
      'after',
      '\nThe base URL, mirror and token file come from --base-url, --db and --token-file (default ./.token), or their defaults.\nExample: ohs init --base-url https://ohs.example.com --db /srv/ohs/ohs.sqlite < token.txt',
    )
    .action(async (flags: InitFlags, cmd: Command) => {
      const given = configFlags(cmd);
      const configFile = given.config !== undefined ? resolve(given.config) : localConfigPath();
      const token = tokenFromStdin();
      const tokenFile = token === undefined ? undefined : resolve(given.tokenFile ?? '.token');
      // The values to write: the defaults under the flags (an existing file is not read: init
      // writes anew), and the token from standard input when given.
      const config = loadConfig(
        { ...given, readFile: false },
        token === undefined ? process.env : { ...process.env, OHS_TOKEN: token },
      );
      for (const pair of flags.idStart ?? []) {
        const [stream = '', id = ''] = pair.split('=');
        config.sync.idStart[stream as keyof typeof config.sync.idStart] = /^\d+$/.test(id) ? Number(id) : id;
      }
      if (token === undefined && config.token === undefined && config.tokenFile === undefined)
        throw new ConfigError(
          'no token: give it on standard input (ohs init < token.txt), or set OHS_TOKEN or OHS_TOKEN_FILE',
        );
      if (!flags.force)
        for (const file of [configFile, tokenFile])
          if (file !== undefined && existsSync(file)) throw new InitExistsError(file);
      const logger = createLogger({ level: 'error', format: 'json', file: null });
      const client = createClient(config, logger);
      try {
        await verifyService(client);
      } finally {
        await client.close();
      }
      const found = `found the service at ${config.baseUrl}: it answered a query${token !== undefined ? ' with the token from standard input' : config.token !== undefined || config.tokenFile !== undefined ? ' with the configured token' : ''}`;
      mkdirSync(dirname(configFile), { recursive: true });
      if (tokenFile !== undefined && token !== undefined) writeFileSafelySync(tokenFile, `${token}\n`, 0o600);
      writeFileSafelySync(configFile, configText(config, tokenFile, new Date().toISOString()), 0o600);
      const next = [
        [asInvoked('sync'), `# fill the mirror ${config.db}`],
        [asInvoked('status'), '# what was synced, and how fresh'],
        [asInvoked('report all'), `# every report into ${config.jobs.outDir}/`],
      ];
      const width = Math.max(...next.map(([c]) => c?.length ?? 0));
      const lines = [
        found,
        `wrote ${configFile}${tokenFile === undefined ? '' : ` and ${tokenFile} (the token, mode 0600)`}`,
        'next:',
        ...next.map(([c, why]) => `  ${(c ?? '').padEnd(width)}  ${why}`),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
