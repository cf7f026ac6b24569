import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { packageRoot } from '../util/package-root.js';
import { type ConfigEntry, explainConfig } from './explain.js';
import type { ConfigLayer } from './layer.js';
import { describeConfigIssue } from './messages.js';
import { type Config, configSchema } from './schema.js';

/** Values given on the command line; they win over everything else. */
export interface ConfigFlags {
  /** A config file used instead of ./config/local.json. */
  config?: string;
  /** false: no config file is read, not even ./config/local.json (`ohs init`, which writes one). */
  readFile?: boolean;
  baseUrl?: string;
  db?: string;
  logLevel?: string;
  logFormat?: string;
  logFile?: string;
  tokenFile?: string;
}

type Json = { [key: string]: unknown };

function isPlainObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepMerge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    const b = out[k];
    out[k] = isPlainObject(b) && isPlainObject(v) ? deepMerge(b, v) : v;
  }
  return out;
}

/**
 * The reason JSON.parse gave, without the quoted excerpt of the text V8 adds to some messages
 * (the excerpt could hold a token), and with the position as line and column.
 */
function jsonReason(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : String(err);
  let reason = message.replace(/,\s*".*" is not valid JSON$/s, '').replace(/\s*\(line \d+ column \d+\)$/, '');
  const at = /\bat position (\d+)/.exec(reason);
  if (at !== null) {
    const before = text.slice(0, Number(at[1]));
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    reason = reason.replace(/\s*in JSON at position \d+|\s*at position \d+/, '');
    reason = `${reason} at line ${line}, column ${column}`;
  }
  return reason.replace(/"[^"]{9,}"/g, '"…"');
}

/**
 * The text with its `//` comments (outside strings) turned into spaces, so that JSON.parse reads
 * it and a position it reports is still the file's: a config file may carry comments, as the one
 * `ohs init` writes does (JSON with comments, as tsconfig.json).
 */
export function withoutComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (inString) {
      out += c;
      if (c === '\\') {
        out += text[i + 1] ?? '';
        i++;
      } else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') {
        out += ' ';
        i++;
      }
      if (i < text.length) out += '\n';
    } else out += c;
  }
  return out;
}

/** A config file's object: JSON, `//` comments allowed; a failure names the file, line and column. */
export function readConfigFile(file: string): Json {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `cannot read config file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      {
        cause: err,
      },
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(withoutComments(text));
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid JSON: ${jsonReason(err, text)}`);
  }
  if (!isPlainObject(data)) throw new ConfigError(`config file ${file}: expected a JSON object`);
  return data;
}

/** The path of the local override file: ./config/local.json under the working directory. */
export function localConfigPath(cwd = process.cwd()): string {
  return join(cwd, 'config', 'local.json');
}

/** One layer per variable or flag that is set, so an error can name the one that gave a value. */
function singleKeyLayers(entries: [label: string, key: string, value: string | undefined][]): ConfigLayer[] {
  return entries
    .filter((e): e is [string, string, string] => e[2] !== undefined && e[2] !== '')
    .map(([label, key, value]) => ({
      kind: label.startsWith('flag') ? 'flag' : 'environment',
      label,
      data: { [key]: value },
    }));
}

/** config/default.json of the package: the one place a default value is written. */
export function defaultConfigPath(): string {
  return join(packageRoot(), 'config', 'default.json');
}

/**
 * The defaults alone (config/default.json parsed by the schema): what every setting is when
 * nothing overrides it. For code that builds resolved options without a user's configuration
 * (the sandbox's address, tests, benchmarks), so that no default is typed a second time.
 */
export function defaultConfig(): Config {
  return configSchema.parse(readConfigFile(defaultConfigPath()));
}

/**
 * The configuration: config/default.json of the package, then ./config/local.json (or the
 * `--config` file), then the environment (OHS_BASE_URL, OHS_TOKEN, OHS_TOKEN_FILE, OHS_DB,
 * OHS_LOG_LEVEL, OHS_LOG_FORMAT, OHS_LOG_FILE), then flags. Validated whole; a bad value is reported by its key and the
 * source that gave it, never with the value of a secret (see messages.ts).
 */
export function loadConfig(
  flags: ConfigFlags = {},
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Config {
  return parseLayers(configLayers(flags, env, cwd)).config;
}

/**
 * The configuration as loadConfig makes it, and every key with its value and the source that
 * gave it (`ohs config`): the same layers, merged and parsed once.
 */
export function loadConfigExplained(
  flags: ConfigFlags = {},
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): { config: Config; entries: ConfigEntry[]; layers: ConfigLayer[] } {
  const layers = configLayers(flags, env, cwd);
  const { config, merged } = parseLayers(layers);
  return { config, entries: explainConfig(config, merged, layers), layers };
}

/** The layers, first to last (later wins): defaults, the local or --config file, environment, flags. */
function configLayers(flags: ConfigFlags, env: NodeJS.ProcessEnv, cwd: string): ConfigLayer[] {
  const defaults = defaultConfigPath();
  const layers: ConfigLayer[] = [{ kind: 'default', label: defaults, data: readConfigFile(defaults) }];
  const local = flags.config !== undefined ? resolve(cwd, flags.config) : localConfigPath(cwd);
  if (flags.readFile !== false && (flags.config !== undefined || existsSync(local)))
    layers.push({ kind: 'file', label: local, data: readConfigFile(local) });
  layers.push(
    ...singleKeyLayers([
      ['environment OHS_BASE_URL', 'baseUrl', env.OHS_BASE_URL],
      ['environment OHS_TOKEN', 'token', env.OHS_TOKEN],
      ['environment OHS_TOKEN_FILE', 'tokenFile', env.OHS_TOKEN_FILE],
      ['environment OHS_DB', 'db', env.OHS_DB],
      ['environment OHS_LOG_LEVEL', 'logLevel', env.OHS_LOG_LEVEL],
      ['environment OHS_LOG_FORMAT', 'logFormat', env.OHS_LOG_FORMAT],
      ['environment OHS_LOG_FILE', 'logFile', env.OHS_LOG_FILE],
      ['flag --base-url', 'baseUrl', flags.baseUrl],
      ['flag --db', 'db', flags.db],
      ['flag --log-level', 'logLevel', flags.logLevel],
      ['flag --log-format', 'logFormat', flags.logFormat],
      ['flag --log-file', 'logFile', flags.logFile],
      ['flag --token-file', 'tokenFile', flags.tokenFile],
    ]),
  );
  return layers;
}

/** The layers merged and validated whole; the first problem as one CONFIG_INVALID line. */
function parseLayers(layers: readonly ConfigLayer[]): { config: Config; merged: Json } {
  const merged = layers.reduce<Json>((acc, layer) => deepMerge(acc, layer.data), {});
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    const issues: z.core.$ZodIssue[] = parsed.error.issues;
    // A misspelt key is the likeliest root cause; report it before what it may have caused.
    const unknown = issues.filter((i) => i.code === 'unrecognized_keys');
    const issue = unknown.sort((a, b) => a.path.length - b.path.length)[0] ?? issues[0];
    throw new ConfigError(
      issue === undefined ? 'configuration is invalid' : describeConfigIssue(issue, merged, layers),
    );
  }
  return { config: parsed.data, merged };
}

/** The bearer token: `token` (OHS_TOKEN) or the content of `tokenFile` (OHS_TOKEN_FILE), trimmed. */
export function resolveToken(config: Config): string | undefined {
  if (config.token !== undefined) return config.token;
  if (config.tokenFile === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(config.tokenFile, 'utf8').trim();
  } catch (err) {
    throw new ConfigError(
      `cannot read token file ${config.tokenFile}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  if (text === '') throw new ConfigError(`token file ${config.tokenFile} is empty`);
  return text;
}

/**
 * A warning when the token file is readable or writable by group or others (as ssh warns about
 * a private key), or undefined. The token is still used: refusing would stop a nightly run
 * over a mode bit, and the warning says how to fix it.
 */
export function tokenFileWarning(config: Config): string | undefined {
  if (config.token !== undefined || config.tokenFile === undefined) return undefined;
  let mode: number;
  try {
    mode = statSync(config.tokenFile).mode & 0o777;
  } catch {
    return undefined; // resolveToken reports a missing file when the token is needed
  }
  if ((mode & 0o077) === 0) return undefined;
  return `token file ${config.tokenFile} is accessible by group or others (mode ${mode.toString(8).padStart(4, '0')}): anyone who can read it can act as you on the service; run chmod 600 ${config.tokenFile}`;
}
