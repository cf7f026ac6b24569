import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOhs } from '../helpers/cli.js';
import { cliConfig, withTmpDir } from '../helpers/mirror.js';

/** What the CLI says about secrets on the command line and on the network. */
describe('ohs hardening', () => {
  const tmp = withTmpDir('ohs-hard-');

  it('--help of --db points at OHS_DB and ~/.pgpass, not a password in argv', async () => {
    for (const cmd of ['sync', 'report', 'plan', 'status']) {
      const r = await runOhs([cmd, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout.replace(/\s+/g, ' '), cmd).toContain('OHS_DB or ~/.pgpass');
    }
  });

  it('warns when the token would cross the network over plain http://, not for loopback', async () => {
    const dir = dirname(tmp());
    const config = cliConfig(dir, { maxRetries: 0, requestDeadlineMs: 3000, timeoutMs: 2000 });
    const env = { OHS_TOKEN: 'secret-token-xyz', OHS_DB: '', OHS_LOG_LEVEL: '' };
    const far = await runOhs(['sync', 'role', '--db', join(dir, 'a.sqlite'), '--config', config], {
      env: { ...env, OHS_BASE_URL: 'http://ohs.invalid' },
    });
    expect(far.code).not.toBe(0);
    expect(far.stderr).toContain('plain http:// to a host that is not this machine');
    expect(far.stderr).not.toContain('secret-token-xyz');
    const near = await runOhs(['sync', 'role', '--db', join(dir, 'b.sqlite'), '--config', config], {
      env: { ...env, OHS_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(near.stderr).not.toContain('plain http://');
  });

  it('the sandbox refuses --hooks on a non-loopback host (they hand out the token and SSNs)', async () => {
    const r = await runOhs(['sim', '--port', '0', '--host', '0.0.0.0', '--hooks']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /ohs: USAGE: sandbox: --hooks with --host 0\.0\.0\.0: the hooks are unauthenticated/,
    );
  });
});
