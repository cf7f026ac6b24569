import { z } from 'zod';
import { maskText } from '../util/mask.js';
import type { ConfigLayer, ConfigSourceKind } from './layer.js';
import { isSecretPath } from './messages.js';
import { type Config, configSchema } from './schema.js';

/** One key of the effective configuration, with the source its value came from (`ohs config`). */
export interface ConfigEntry {
  /** Dotted path: `api.concurrency`, `jobs.schedules.nightly`. */
  key: string;
  /** The value in effect, safe to print: a token is `(hidden)`, a URL's password masked. */
  value: unknown;
  /** Where it came from; `unset` for an optional key nothing gave. */
  source: ConfigSourceKind | 'unset';
  /** The file, variable or flag (`environment OHS_TOKEN`, `flag --db`, a file's path). */
  from?: string;
}

type Json = { [key: string]: unknown };
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function at(data: unknown, path: readonly string[]): { found: boolean; value: unknown } {
  let v = data;
  for (const k of path) {
    if (!isObject(v) || !(k in v)) return { found: false, value: undefined };
    v = v[k];
  }
  return { found: true, value: v };
}

/** The schema under optional, nullable and transformed wrappers. */
function unwrap(s: z.ZodType): z.ZodType {
  let t = s;
  while (t instanceof z.ZodOptional || t instanceof z.ZodNullable || t instanceof z.ZodPipe) {
    t = t instanceof z.ZodPipe ? (t.in as z.ZodType) : (t.unwrap() as z.ZodType);
  }
  return t;
}

/** Every printable key path: an object's fields, a record's entries as given, else the key itself. */
function keyPaths(schema: z.ZodType, merged: unknown, path: string[], out: string[][]): string[][] {
  const s = unwrap(schema);
  const here = at(merged, path);
  if (s instanceof z.ZodObject && (path.length === 0 || here.found)) {
    for (const [k, field] of Object.entries(s.shape as Record<string, z.ZodType>))
      keyPaths(field, merged, [...path, k], out);
  } else if (s instanceof z.ZodRecord && isObject(here.value) && Object.keys(here.value).length > 0) {
    for (const k of Object.keys(here.value)) out.push([...path, k]);
  } else out.push(path);
  return out;
}

/** Every string under a secret-like key (the token), so that no other key shows it either. */
function secrets(data: unknown, path: string[] = [], out: string[] = []): string[] {
  if (typeof data === 'string' && isSecretPath(path) && data.length >= 4) out.push(data);
  else if (isObject(data)) for (const [k, v] of Object.entries(data)) secrets(v, [...path, k], out);
  return out;
}

/** The value as `ohs config` may print it. */
function safeValue(path: readonly string[], value: unknown, hidden: readonly string[]): unknown {
  if (path[path.length - 1] === 'token') return '(hidden)';
  const text = JSON.stringify(value) ?? '';
  if (path[path.length - 1] !== 'tokenFile' && hidden.some((h) => text.includes(h))) return '(hidden)';
  if (typeof value === 'string') return maskText(value);
  return value;
}

/**
 * Every key of the configuration with its value in effect (parsed: a base URL without its
 * trailing slash; as given where parsing drops it: a schedule "off") and the last layer that set
 * it. A token is never shown, only where it came from; the token file's path is shown.
 */
export function explainConfig(config: Config, merged: Json, layers: readonly ConfigLayer[]): ConfigEntry[] {
  const hidden = secrets(merged);
  const entries = keyPaths(configSchema, merged, [], []).map((path): ConfigEntry => {
    const key = path.join('.');
    const layer = [...layers].reverse().find((l) => at(l.data, path).found);
    if (layer === undefined) return { key, value: null, source: 'unset' };
    const parsed = at(config, path);
    const value = parsed.found ? parsed.value : at(merged, path).value;
    return { key, value: safeValue(path, value, hidden), source: layer.kind, from: layer.label };
  });
  // The token read from a file: where it comes from is the file's own source.
  const token = entries.find((e) => e.key === 'token');
  const file = entries.find((e) => e.key === 'tokenFile');
  if (token?.source === 'unset' && file !== undefined && file.source !== 'unset')
    Object.assign(token, { value: '(hidden: read from tokenFile)', source: file.source, from: file.from });
  return entries;
}
