import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { expect, inject } from 'vitest';
import { displayBaseUrl, metaKeys, writeMeta } from '../../src/mirror/index.js';
import type { RunningSim } from '../../src/sim/index.js';
import { runOhs } from '../helpers/cli.js';
import { type EngineName, engines, withTargets } from '../helpers/engines.js';
import { withMirror } from '../helpers/mirror.js';
import { TEST_ANCHOR } from '../helpers/sim.js';
import {
  observedAt,
  optionsKey,
  type SharedSynced,
  SYNC_TIME,
  syncedEnv,
  truthDigest,
  writeSyncedConfig,
} from '../helpers/synced-global-setup.js';

/**
 * The sandbox synced by `ohs sync` into a new mirror of each engine, and `ohs report all` run on
 * it (once per engine and test file): the end-to-end reports tests read its files back.
 */
export interface Synced {
  /** The working folder (its config/local.json points at the sandbox). */
  dir: string;
  db: string;
  /** stderr of `ohs report all`. */
  stderr: string;
  stdout: string;
}

export { observedAt, SYNC_TIME };

export const env = syncedEnv;

/** The run's shared synced mirror of `engine` (test/helpers/synced-global-setup.ts), once built. */
let shared: Promise<SharedSynced & { digest: string }> | undefined;
function sharedSynced(): Promise<SharedSynced & { digest: string }> {
  shared ??= (async () => {
    const s = inject('ohsSynced');
    writeFileSync(join(s.stateDir, 'wanted'), '');
    const deadline = Date.now() + 240_000;
    for (;;) {
      const ready = join(s.stateDir, 'ready');
      if (existsSync(ready)) return { ...s, digest: readFileSync(ready, 'utf8') };
      const failed = join(s.stateDir, 'failed');
      if (existsSync(failed)) throw new Error(`the shared synced mirror: ${readFileSync(failed, 'utf8')}`);
      if (Date.now() > deadline) throw new Error('the shared synced mirror was not ready within 240 s');
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return shared;
}

/**
 * A copy of the shared synced mirror of `engine`, pointed at the file's own sandbox; undefined
 * when that sandbox no longer holds what was synced (an earlier test changed it).
 */
async function copyOfShared(
  engine: EngineName,
  target: (template?: string) => Promise<string>,
  sim: RunningSim,
): Promise<string | undefined> {
  const s = await sharedSynced();
  if (truthDigest(sim) !== s.digest) return undefined;
  const db = await target((engine === 'sqlite' ? s.sqlite : s.pgTemplate) ?? undefined);
  // The copy names the service it was filled from: the file's sandbox (the same data on another port).
  await withMirror(db, async (m) => {
    for (const key of [metaKeys.sourceBaseUrl, metaKeys.lastBaseUrl])
      await writeMeta(m.db, key, displayBaseUrl(sim.url));
  });
  return db;
}

/**
 * Call at the top of a test file (it registers the targets' cleanup). A file whose sandbox has
 * the shared one's options (`SHARED_SIM`: the same data) starts from a copy of the run's synced
 * mirror when its sandbox still holds the same records (`truthDigest`), as if it had synced it
 * (which therefore sees no sync's requests: a file that counts them starts its sandbox with
 * other options); any other syncs its own with `ohs sync`.
 */
export function syncedSandbox(sim: () => RunningSim): (engine: EngineName) => Promise<Synced> {
  const targets = new Map(engines.map((e) => [e, withTargets(e)] as const));
  const syncs = new Map<EngineName, Promise<Synced>>();
  return (engine) => {
    let p = syncs.get(engine);
    if (p === undefined) {
      p = (async () => {
        const target = targets.get(engine) as (template?: string) => Promise<string>;
        const dir = mkdtempSync(join(tmpdir(), `ohs-reports-e2e-${engine}-`));
        const copy =
          optionsKey(sim().options) === inject('ohsSynced').key
            ? await copyOfShared(engine, target, sim())
            : undefined;
        const db = copy ?? (await target());
        writeSyncedConfig(dir, sim().url, db);
        if (copy === undefined) {
          const synced = await runOhs(['sync'], { cwd: dir, env, timeoutMs: 240_000 });
          expect(synced.code, synced.stderr).toBe(0);
          await observedAt(db, SYNC_TIME);
        }
        // A hang guard, not a bound: `report all` passed a minute at load 30 (runOhs's default).
        const r = await runOhs(['report', 'all', '--as-of', TEST_ANCHOR, '--present', '--out', 'out'], {
          cwd: dir,
          env,
          timeoutMs: 240_000,
        });
        expect(r.code, r.stderr).toBe(0);
        return { dir, db, stderr: r.stderr, stdout: r.stdout };
      })();
      syncs.set(engine, p);
    }
    return p;
  };
}

export function csv(file: string): Record<string, string>[] {
  return parse(readFileSync(file, 'utf8'), { columns: true, bom: true }) as Record<string, string>[];
}
