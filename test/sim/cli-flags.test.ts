import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { flagName } from '../../src/commands/schema-flags.js';
import { simOptionsSchema } from '../../src/sim/index.js';
import { runOhs, startOhs } from '../helpers/cli.js';

/**
 * `ohs sim`'s flags are generated from the sandbox's schema (src/sim/options.ts): every setting
 * has its flag, with the schema's default in the help, and a value given on the command line
 * reaches the running sandbox. A new setting added to the schema is covered here without a line
 * of this test (unless its text has a pattern: then one line in `chosen`).
 */
const fields = Object.entries(simOptionsSchema.shape) as [string, z.ZodType][];

/** The type under `.default()` / `.optional()`. */
function inner(field: z.ZodType): z.ZodType {
  let t = field;
  while (t.def.type === 'default' || t.def.type === 'optional')
    t = (t.def as unknown as { innerType: z.ZodType }).innerType;
  return t;
}

function defaultOf(field: z.ZodType): unknown {
  const parsed = field.safeParse(undefined);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Values the schema accepts that differ from the defaults, chosen by type; a few chosen here
 * because their text has a pattern, or so that the sandbox stays small and quiet (a mutation
 * every few milliseconds would load the machine for nothing).
 */
const chosen: Record<string, unknown> = {
  prefix: '/api',
  anchorDate: '2026-01-15',
  scale: 0.01,
  mutateEveryMs: 600_000,
  latencyCycleMs: [3, 44],
};

function otherValue(key: string, field: z.ZodType): unknown {
  if (key in chosen) return chosen[key];
  const t = inner(field);
  const d = defaultOf(field);
  const candidates: unknown[] = (() => {
    switch (t.def.type) {
      case 'boolean':
        return [d !== true];
      case 'number':
        return [Number(d ?? 0) + 3, Number(d ?? 0) + 0.25, Number(d ?? 0) - 1];
      case 'enum':
        return (t as z.ZodEnum).options.filter((o) => o !== d);
      case 'array': {
        const element = (t as z.ZodArray<z.ZodType>).element;
        const items = element.def.type === 'enum' ? (element as z.ZodEnum).options : ['getStaff'];
        return items.filter((o) => !(d as unknown[]).includes(o)).map((o) => [o]);
      }
      default:
        return [`${String(d ?? '')}-x`];
    }
  })();
  const value = candidates.find((v) => field.safeParse(v).success && JSON.stringify(v) !== JSON.stringify(d));
  if (value === undefined)
    throw new Error(`choose a value of sandbox setting ${key} in this test's "chosen"`);
  return value;
}

/** `ohs sim --help` cut into one entry per option (descriptions wrap over several lines). */
function helpEntries(help: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const chunk of help.split(/\n(?= {2}-)/)) {
    const m = /^ {2}(?:-\w, )?(--[\w-]+)/.exec(chunk);
    if (m?.[1] !== undefined) entries.set(m[1], chunk.replace(/\s+/g, ' ').trim());
  }
  return entries;
}

describe('ohs sim: flags generated from the sandbox schema', () => {
  it('lists a flag for every setting of the schema, with its description and default', async () => {
    const r = await runOhs(['sim', '--help']);
    expect(r.code).toBe(0);
    const entries = helpEntries(r.stdout);
    for (const [key, field] of fields) {
      const d = defaultOf(field);
      const flag = `--${d === true ? 'no-' : ''}${flagName(key, field)}`;
      const entry = entries.get(flag);
      expect(entry, `${key}: no ${flag} in ohs sim --help`).toBeDefined();
      expect(entry).toContain(field.description?.replace(/\s+/g, ' ').slice(0, 30));
      if (d !== undefined && d !== true) expect(entry).toContain(`default: ${JSON.stringify(d)}`);
    }
    // Nothing else: the schema's settings and where the sandbox listens.
    expect([...entries.keys()].sort()).toEqual(
      [
        ...fields.map(([k, f]) => `--${defaultOf(f) === true ? 'no-' : ''}${flagName(k, f)}`),
        '--port',
        '--host',
        '--help',
      ].sort(),
    );
  });

  describe('every setting given on the command line', () => {
    const values = Object.fromEntries(fields.map(([key, field]) => [key, otherValue(key, field)]));
    let child: ChildProcess | undefined;
    afterAll(async () => {
      if (child === undefined || child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    });

    it('reaches the running sandbox', async () => {
      const args = ['sim', '--port', '0'];
      for (const [key, field] of fields) {
        const value = values[key];
        const flag = `--${flagName(key, field)}`;
        if (value === true) args.push(flag);
        else if (value === false) args.push(`--no-${flagName(key, field)}`);
        else args.push(flag, Array.isArray(value) ? value.join(',') : String(value));
      }
      const started = await startOhs(args);
      child = started.child;
      // Echoes the running settings (a configuration hook with nothing to change).
      const res = await fetch(`${started.firstLine}/__sim/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(200);
      const running = (await res.json()) as Record<string, unknown>;
      for (const [key] of fields) expect({ [key]: running[key] }).toEqual({ [key]: values[key] });
    });
  });
});

describe('ohs sim: its log as the global flags ask', () => {
  it('--log-format pretty is readable on a pipe, json is NDJSON, --log-file gets every line as JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ohs-sim-log-'));
    const lines = async (args: string[]) => {
      const s = await startOhs([...args, 'sim', '--port', '0', '--scale', '0.01']);
      await fetch(`${s.firstLine}/__sim/config`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      s.child.kill('SIGTERM');
      await once(s.child, 'exit');
      return s.stderr().trimEnd().split('\n');
    };
    const isJson = (l: string) => {
      try {
        return typeof JSON.parse(l) === 'object';
      } catch {
        return false;
      }
    };
    const pretty = await lines(['--log-format', 'pretty', '--log-file', join(dir, 'sim.log')]);
    expect(
      pretty.some((l) => l.includes('sandbox listening')),
      pretty.join('\n'),
    ).toBe(true);
    expect(pretty.filter(isJson)).toEqual([]);
    const file = readFileSync(join(dir, 'sim.log'), 'utf8').trimEnd().split('\n');
    expect(file.every(isJson)).toBe(true);
    expect(file.map((l) => (JSON.parse(l) as { msg: string }).msg)).toContain('sandbox stopping');
    const json = await lines(['--log-format', 'json']);
    expect(json.length).toBeGreaterThan(0);
    expect(json.every(isJson), json.join('\n')).toBe(true);
  });
});
