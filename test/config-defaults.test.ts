import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { configSchema } from '../src/config/index.js';
import { runOhs } from './helpers/cli.js';
import { defaults } from './helpers/defaults.js';
import { engines, withTargets } from './helpers/engines.js';
import { cliEnv } from './helpers/mirror.js';
import { withSim } from './helpers/sim.js';

/** Every `.default()` / `.prefault()` under a zod schema, by path. */
function schemaDefaults(schema: z.ZodType, path = 'config'): string[] {
  const def = schema.def as unknown as Record<string, unknown> & { type: string };
  const found = def.type === 'default' || def.type === 'prefault' ? [path] : [];
  const children: [string, unknown][] = [];
  if (def.type === 'object') children.push(...Object.entries(def.shape as Record<string, unknown>));
  for (const k of ['innerType', 'element', 'valueType', 'in', 'out'] as const)
    if (def[k] !== undefined) children.push(['', def[k]]);
  if (Array.isArray(def.options)) for (const o of def.options) children.push(['', o]);
  for (const [key, child] of children)
    if (typeof child === 'object' && child !== null && 'def' in child)
      found.push(...schemaDefaults(child as z.ZodType, key === '' ? path : `${path}.${key}`));
  return found;
}

describe('config/default.json is the one source of a configured default', () => {
  it('the config schema declares types and bounds, no default value of its own', () => {
    expect(schemaDefaults(configSchema)).toEqual([]);
  });

  // The client's page size, once a literal fallback in client.ts: the value asked of the service
  // is the configured one, the packaged default when nothing overrides it.
  describe.each(engines)('%s', (engine) => {
    const sim = withSim({ scale: 0.02, recordRequests: true, pageCap: 0 });
    const target = withTargets(engine);

    async function pageSizesAsked(local: Record<string, unknown>): Promise<number[]> {
      const dir = mkdtempSync(join(tmpdir(), 'ohs-defaults-'));
      mkdirSync(join(dir, 'config'));
      writeFileSync(join(dir, 'config', 'local.json'), JSON.stringify({ logLevel: 'warn', ...local }));
      await fetch(`${sim().url}/__sim/requests`); // forget earlier requests
      const r = await runOhs(['sync', 'role', '--db', await target()], { cwd: dir, env: cliEnv(sim()) });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const recorded = (await (await fetch(`${sim().url}/__sim/requests`)).json()) as {
        method: string;
        path: string;
        body: string;
      }[];
      // The pages of the listing (sorted by id), not the one-record service check before the sync.
      const pages = recorded
        .filter((q) => q.method === 'POST' && q.path.endsWith('/role'))
        .map((q) => JSON.parse(q.body) as { pageSize: number; sortBy?: string })
        .filter((body) => body.sortBy === 'id');
      expect(pages.length).toBeGreaterThan(0);
      return pages.map((body) => body.pageSize);
    }

    it('sync asks the configured page size: config/default.json, or a config file that changes it', async () => {
      const roles = sim().truth().Role.length;
      const packaged = await pageSizesAsked({});
      expect(new Set(packaged)).toEqual(new Set([defaults.api.pageSize]));
      const changed = await pageSizesAsked({ api: { pageSize: 7 } });
      expect(new Set(changed)).toEqual(new Set([7]));
      // Pages of 7 records: the whole table takes at least that many requests.
      expect(changed.length).toBeGreaterThanOrEqual(Math.ceil(roles / 7));
    });
  });
});
