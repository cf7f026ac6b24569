import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { packageRoot } from '../util/package-root.js';
import { type Config, configSchema } from './schema.js';

/** Values given on the command line; they win over everything else. */
export interface ConfigFlags {
  /** A config file used instead of ./config/local.json. */
  config?: string;
  baseUrl?: string;
  db?: string;
  logLevel?: string;
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

function readJson(file: string): Json {
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
    data = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (!isPlainObject(data)) throw new ConfigError(`config file ${file}: expected a JSON object`);
  return data;
}

/** The path of the local override file: ./config/local.json under the working directory. */
export function localConfigPath(cwd = process.cwd()): string {
  return join(cwd, 'config', 'local.json');
}

/**
 * The configuration: config/default.json of the package, then ./config/local.json (or the
 * `--config` file), then the environment (OHS_BASE_URL, OHS_TOKEN, OHS_TOKEN_FILE, OHS_DB,
 * OHS_LOG_LEVEL), then flags. Validated whole; a bad value is reported by its key.
 */
export function loadConfig(
  flags: ConfigFlags = {},
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Config {
  let merged = readJson(join(packageRoot(), 'config', 'default.json'));
  const sources = ['config/default.json'];
  const local = flags.config !== undefined ? resolve(cwd, flags.config) : localConfigPath(cwd);
  if (flags.config !== undefined || existsSync(local)) {
    merged = deepMerge(merged, readJson(local));
    sources.push(local);
  }
  merged = deepMerge(merged, {
    baseUrl: env.OHS_BASE_URL || undefined,
    token: env.OHS_TOKEN || undefined,
    tokenFile: env.OHS_TOKEN_FILE || undefined,
    db: env.OHS_DB || undefined,
    logLevel: env.OHS_LOG_LEVEL || undefined,
  });
  merged = deepMerge(merged, {
    baseUrl: flags.baseUrl,
    db: flags.db,
    logLevel: flags.logLevel,
    tokenFile: flags.tokenFile,
  });
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue?.path.join('.') || '(top level)';
    const value = issue?.path.reduce<unknown>(
      (v, k) => (isPlainObject(v) ? v[String(k)] : undefined),
      merged,
    );
    const shown = key === 'token' ? '(hidden)' : JSON.stringify(value);
    throw new ConfigError(
      `configuration value ${key} is invalid: ${issue?.message ?? 'invalid'}${shown === undefined ? '' : ` (got ${shown})`}; sources: ${sources.join(', ')}, environment, flags`,
    );
  }
  return parsed.data;
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
