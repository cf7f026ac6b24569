import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runOhs } from '../helpers/cli.js';
import { cliConfig, cliEnv } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * No silent empty report: a report over streams the mirror never synced successfully (a mirror
 * whose only sync failed, or synced other streams only) is refused with NOT_SYNCED, its first
 * line saying what is missing and what to do, and writes nothing.
 */
const sim = withSim({ scale: 0.03 });
const dir = mkdtempSync(join(tmpdir(), 'ohs-not-synced-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a report over streams never synced', () => {
  it('exits 1 with NOT_SYNCED and writes no file, from ohs report and the reports job alike', async () => {
    const env = cliEnv(sim());
    const config = cliConfig(dir);
    const db = join(dir, 'm.sqlite');
    // A failed sync (a wrong token) and a sync of two small streams: invoices never synced.
    const failed = await runOhs(['sync', '--db', db, '--config', config], {
      env: { ...env, OHS_TOKEN: 'a-wrong-token' },
    });
    expect(failed.code).not.toBe(0);
    const some = await runOhs(['sync', 'role', 'tenant', '--db', db, '--config', config], { env });
    expect(some.code, some.stderr).toBe(0);
    const out = join(dir, 'out');
    const r = await runOhs(['report', 'all', '--db', db, '--config', config, '--out', out], { env });
    expect(r.code).toBe(1);
    const first = r.stderr.split('\n')[0];
    expect(first).toMatch(
      /^ohs: NOT_SYNCED: compliance, unpaid-invoices, order-ageing, catch-up, ar-rollforward, accounts-at-risk, changes: the mirror holds no successful sync of /,
    );
    expect(first).toMatch(/invoice/);
    expect(first).toMatch(/run ohs sync/);
    expect(existsSync(out)).toBe(false);
    // The reports job refuses the same way.
    const job = await runOhs(['run', 'reports', '--db', db, '--config', config], { env, cwd: dir });
    expect(job.code).toBe(1);
    expect(job.stderr.split('\n')[0]).toMatch(/^ohs: NOT_SYNCED: /);
  });
});
