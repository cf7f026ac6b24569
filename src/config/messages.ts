import { z } from 'zod';
import { closestName } from '../util/closest.js';
import { maskText } from '../util/mask.js';
import type { ConfigLayer } from './layer.js';
import { configSchema } from './schema.js';

/**
 * One-line CONFIG_INVALID messages. They name the key and the source that gave it, suggest the
 * closest valid key for a misspelt one, and show a value only when its key is not named like
 * a secret and the value is a short scalar: the merged configuration holds the token, and
 * these lines end up in cron logs.
 */

const secretLike = /token|secret|passw|credential|auth|cookie|private|api[-_]?key|session/i;

/** True when a key path names something that must never be shown (token, tokenFile, password...). */
export function isSecretPath(path: readonly PropertyKey[]): boolean {
  return path.some((k) => secretLike.test(String(k)));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value shown after "got": short scalars only; objects and arrays are named by their kind. */
export function shownValue(path: readonly PropertyKey[], value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (isSecretPath(path)) return '(hidden)';
  if (Array.isArray(value)) return 'a list';
  if (isObject(value)) return 'an object';
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}

/** The schema of the object at `path`, unwrapping optional and transformed values. */
function schemaAt(path: readonly PropertyKey[]): z.ZodType | undefined {
  let s: z.ZodType | undefined = configSchema;
  for (const k of [...path, null]) {
    while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodPipe) {
      s = s instanceof z.ZodPipe ? (s.in as z.ZodType) : (s.unwrap() as z.ZodType);
    }
    if (k === null || s === undefined) break;
    s = s instanceof z.ZodObject ? (s.shape as Record<string, z.ZodType>)[String(k)] : undefined;
  }
  return s;
}

/** The keys allowed at `path` (an object's fields, a record's enumerated keys). */
export function validKeysAt(path: readonly PropertyKey[]): string[] {
  const s = schemaAt(path);
  if (s instanceof z.ZodObject) return Object.keys(s.shape);
  if (s instanceof z.ZodRecord) {
    const keyType = s.keyType;
    if (keyType instanceof z.ZodEnum) return keyType.options.map(String);
  }
  return [];
}

/** The valid key closest to `key` (case-insensitive), when it is close enough to be a typo. */
export function closestKey(key: string, candidates: readonly string[]): string | undefined {
  return closestName(key, candidates);
}

function hasPath(data: unknown, path: readonly PropertyKey[]): boolean {
  let v = data;
  for (const k of path) {
    if (!isObject(v) || !(String(k) in v)) return false;
    v = v[String(k)];
  }
  return true;
}

/** The source that set `path` last (the one whose value is in effect). */
function originOf(path: readonly PropertyKey[], layers: readonly ConfigLayer[]): string | undefined {
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i];
    if (layer !== undefined && hasPath(layer.data, path)) return layer.label;
  }
  return undefined;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((v, k) => (isObject(v) ? v[String(k)] : undefined), data);
}

/** Every string held under a secret-like key, anywhere in `data` (the token above all). */
function secretValues(data: unknown, path: PropertyKey[] = [], out: string[] = []): string[] {
  if (typeof data === 'string') {
    if (isSecretPath(path) && data.length >= 4) out.push(data);
  } else if (Array.isArray(data) || isObject(data)) {
    for (const [k, v] of Object.entries(data)) secretValues(v, [...path, k], out);
  }
  return out;
}

const dotted = (path: readonly PropertyKey[]) => path.map(String).join('.');

/**
 * Keys an earlier version read, and what took their place: named as removed, never offered a
 * near spelling (sync.probeMinIds is not sync.probeMaxIds).
 */
const REMOVED: Readonly<Record<string, string>> = {
  'sync.probeMinIds':
    'probing above the highest known id now reaches as far again as the span of ids the stream holds',
};

/** The one-line message for a failed validation of the merged configuration. */
export function describeConfigIssue(
  issue: z.core.$ZodIssue,
  merged: unknown,
  layers: readonly ConfigLayer[],
): string {
  if (issue.code === 'unrecognized_keys') {
    const valid = validKeysAt(issue.path);
    const removed = issue.keys.map((k) => dotted([...issue.path, k])).filter((k) => REMOVED[k] !== undefined);
    if (removed.length > 0) {
      const key = removed[0] ?? '';
      const from = originOf(key.split('.'), layers);
      return `configuration key ${key}${from === undefined ? '' : ` in ${from}`} was removed (${REMOVED[key]}): delete it`;
    }
    const parts = issue.keys.map((k) => {
      const path = [...issue.path, k];
      const near = closestKey(k, valid);
      const from = originOf(path, layers);
      return `${dotted(path)}${from === undefined ? '' : ` in ${from}`}${near === undefined ? '' : ` (did you mean ${dotted([...issue.path, near])}?)`}`;
    });
    return `unknown configuration key ${parts.join('; ')}; valid keys${issue.path.length > 0 ? ` of ${dotted(issue.path)}` : ''}: ${valid.join(', ')}`;
  }
  const key = dotted(issue.path) || '(top level)';
  const from = originOf(issue.path, layers);
  let shown = shownValue(issue.path, valueAt(merged, issue.path));
  // A secret pasted under the wrong key (`"api": "<token>"`) is still a secret.
  if (shown !== undefined && secretValues(merged).some((v) => shown?.includes(v.slice(0, 36))))
    shown = '(hidden)';
  // A URL's password (`ftp://x:secret@host/`) is never echoed.
  if (shown !== undefined) shown = maskText(shown);
  return `configuration value ${key} is invalid: ${issue.message}${shown === undefined ? '' : ` (got ${shown})`}${from === undefined ? '' : `; set in ${from}`}`;
}
