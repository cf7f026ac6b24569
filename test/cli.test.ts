import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OHS_BIN, runOhs, startOhs } from './helpers/cli.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

describe('ohs CLI', () => {
  it('prints help listing the commands, exit 0', async () => {
    const r = await runOhs(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: ohs');
    expect(r.stdout).toMatch(/\bsim \[options\]/);
    expect(r.stdout).toContain('--log-level');
  });

  it.each([[['report', '--list']], [['help', 'sync']]])(
    'ohs %j whose reader has gone away (`| head -1`) ends quietly with exit 0',
    async (args) => {
      const child = spawn(process.execPath, [OHS_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy(); // the reader closes its end before the command prints anything
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const [code] = (await once(child, 'close')) as [number | null];
      expect(stderr).toBe('');
      expect(code).toBe(0);
    },
  );

  it('prints the package version', async () => {
    const r = await runOhs(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('rejects an unknown command with one USAGE line and exit 2', async () => {
    const r = await runOhs(['frobnicate']);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ohs: USAGE: unknown command 'frobnicate'/);
  });

  it('rejects a bad option value naming the option, exit 2', async () => {
    const r = await runOhs(['sim', '--port', 'eighty']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^ohs: USAGE: option '--port <n>' argument 'eighty' is invalid/);
    const bad = await runOhs(['sim', '--envelope', 'xml']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--envelope');
    const rate = await runOhs(['sim', '--faults', '1.5']);
    expect(rate.code).toBe(2);
    expect(rate.stderr).toContain('--faults');
  });

  it('ohs sim --port 0 prints a base URL that answers, and stops on SIGTERM with exit 0', async () => {
    const { child, firstLine } = await startOhs([
      'sim',
      '--port',
      '0',
      '--scale',
      '0.05',
      '--token',
      'tok-w',
      '--readonly-token',
      'tok-r',
      '--prefix',
      '/api',
    ]);
    try {
      expect(firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
      const query = (token: string) =>
        fetch(`${firstLine}/vLatest/query/core/orderitem`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ sortBy: 'id', sortDirection: 'asc', pageSize: 5 }),
        });
      const ok = await query('tok-r');
      expect(ok.status).toBe(200);
      const rows = (await ok.json()) as { id: number }[];
      expect(rows).toHaveLength(5);
      expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort((a, b) => a - b));
      expect((await query('sim-write-token')).status).toBe(401);
      const write = await fetch(`${firstLine}/vLatest/action/core/person/70001`, {
        method: 'DELETE',
        headers: { authorization: 'Bearer tok-r' },
      });
      expect(write.status).toBe(403);
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });
});
