import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { OHS_BIN, runOhs } from '../helpers/cli.js';
import { describeEngines, withTargets } from '../helpers/engines.js';
import { cliConfig, cliEnv, withTmpDir } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/** The status line's state word: `OHS CRITICAL - ...` → CRITICAL. */
const state = (line: string) => /^OHS (OK|WARNING|CRITICAL|UNKNOWN) - /.exec(line)?.[1];

describeEngines('%s: ohs status --check', {}, (engine) => {
  let onRequest: (() => void) | undefined;
  // Small data: the status line reads the runs and the streams' ages, whatever their size.
  const sim = withSim({ scale: 0.02, onRequest: () => onRequest?.() });
  const tmp = withTmpDir('ohs-check-');
  const target = withTargets(engine);
  const config = () => cliConfig(dirname(tmp()));
  const ohs = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    runOhs([...args, '--config', config()], { env: { ...cliEnv(sim()), ...env }, timeoutMs: 120_000 });

  /** One status line on stdout, nothing on stderr. */
  async function check(db: string, ...args: string[]) {
    const r = await ohs(['status', '--db', db, '--check', ...args]);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    return { code: r.code, line: lines[0] ?? '', state: state(lines[0] ?? '') };
  }

  it('a fresh mirror is OK (0); older than --warn-age WARNING (1); older than --max-age CRITICAL (2)', async () => {
    const db = await target();
    const sync = await ohs(['sync', '--db', db]);
    expect(sync.code, sync.stderr).toBe(0);
    const ok = await check(db, '--max-age', '1d');
    expect(ok).toMatchObject({ code: 0, state: 'OK' });
    expect(ok.line).toMatch(/streams fresh .* last sync run 1 ok \| 'orderitem_age'=\d+s;;86400;0/);
    // The default age is config monitor.maxAge (26h): just synced, OK.
    expect(await check(db)).toMatchObject({ code: 0, state: 'OK' });
    // Any mirror is older than a millisecond by the time a process reads it.
    const warn = await check(db, '--max-age', '1d', '--warn-age', '0.001s');
    expect(warn).toMatchObject({ code: 1, state: 'WARNING' });
    expect(warn.line).toMatch(/orderitem last synced \d+s ago \(warn 0s\)/);
    const stale = await check(db, '--max-age', '0.001s');
    expect(stale).toMatchObject({ code: 2, state: 'CRITICAL' });
    expect(stale.line).toMatch(/invoice last synced \d+s ago \(max 0s\)/);
    const plain = await ohs(['status', '--db', db]);
    expect(plain.code).toBe(0);
  });

  it('after a sync that failed (the service refused the token): CRITICAL naming the run and its code; plain status still exits 0', async () => {
    const db = await target();
    expect((await ohs(['sync', '--db', db])).code).toBe(0);
    const failed = await ohs(['sync', '--db', db], { OHS_TOKEN: 'not-the-token' });
    expect(failed.code).not.toBe(0);
    const r = await check(db, '--max-age', '1d');
    expect(r).toMatchObject({ code: 2, state: 'CRITICAL' });
    expect(r.line).toMatch(/^OHS CRITICAL - last sync run 2 failed \(\w+\)/);
    expect(r.line).not.toContain('not-the-token');
    expect((await ohs(['status', '--db', db])).code).toBe(0);
    // The next good run clears it.
    expect((await ohs(['sync', '--db', db])).code).toBe(0);
    expect(await check(db, '--max-age', '1d')).toMatchObject({ code: 0, state: 'OK' });
  });

  it('after a sync killed with SIGKILL mid-run: CRITICAL, interrupted (KILLED)', async () => {
    const db = await target();
    expect((await ohs(['sync', '--db', db])).code).toBe(0);
    const start = sim().stats.requests;
    const child = spawn(process.execPath, [OHS_BIN, 'sync', '--full', '--db', db, '--config', config()], {
      env: { ...process.env, ...cliEnv(sim()) },
      stdio: 'ignore',
    });
    onRequest = () => {
      if (sim().stats.requests - start >= 20) child.kill('SIGKILL');
    };
    const [, signal] = (await once(child, 'exit')) as [number | null, string | null];
    onRequest = undefined;
    expect(signal).toBe('SIGKILL');
    const r = await check(db, '--max-age', '1d');
    expect(r).toMatchObject({ code: 2, state: 'CRITICAL' });
    expect(r.line).toMatch(/last sync run 2 interrupted \(KILLED\)/);
    expect((await ohs(['status', '--db', db])).code).toBe(0);
  });

  it('a mirror that is not there (no file, an empty database) is UNKNOWN (3); a first sync refused by the service creates no file (still UNKNOWN); on an existing database it is CRITICAL, every stream never synced', async () => {
    const db = await target();
    const none = await check(db);
    expect(none).toMatchObject({ code: 3, state: 'UNKNOWN' });
    if (engine === 'sqlite')
      expect(none.line).toBe(`OHS UNKNOWN - no mirror at ${db}: run ohs sync first (or pass --db FILE)`);
    const failed = await ohs(['sync', '--db', db], { OHS_TOKEN: 'not-the-token' });
    expect(failed.code).not.toBe(0);
    if (engine === 'sqlite') {
      // No file yet: the service check refused the token before any mirror was created.
      expect(await check(db)).toMatchObject({ code: 3, state: 'UNKNOWN' });
      return;
    }
    const r = await check(db);
    expect(r).toMatchObject({ code: 2, state: 'CRITICAL' });
    expect(r.line).toMatch(/^OHS CRITICAL - last sync run 1 failed \(\w+\); .*orderitem never synced/);
  });

  it('a bad monitor.maxAge or --max-age is a one-line error naming it', async () => {
    const db = await target();
    const bad = await ohs(['status', '--db', db, '--check', '--max-age', '26 hours']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(
      /^ohs: USAGE: .*--max-age.*expected a duration such as 90m, 26h, 7d or 2w/,
    );
    const dir = dirname(tmp());
    const file = join(dir, 'bad-monitor.json');
    writeFileSync(file, JSON.stringify({ monitor: { maxAge: 'a day' } }));
    const r = await runOhs(['status', '--db', db, '--check', '--config', file], { env: cliEnv(sim()) });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(
      /^ohs: CONFIG_INVALID: configuration value monitor\.maxAge is invalid: expected a duration/,
    );
  });
});
