import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createConnection } from 'node:net';
import { describe, expect, it } from 'vitest';
import { OHS_BIN } from './helpers/cli.js';

/** Whether something accepts connections at host:port. */
function listening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Stopping the command that started the sandbox stops the sandbox. npx (npm 11) runs a bin as
 * npm → `sh -c` → node and, on SIGTERM, forwards it to the shell only: the shell dies and node,
 * orphaned, went on listening. The stand-in below is npm as far as the bin can tell (it sets
 * npm_command=exec, spawns `sh -c`, forwards SIGTERM to the shell and exits).
 */
describe('ohs under npx', () => {
  it('`npx ohs sim &` then `kill $!`: the sandbox stops too', async () => {
    const npm = `
      const { spawn } = require('node:child_process');
      const child = spawn('sh', ['-c', '"$0" "$1" sim --port 0', process.execPath, ${JSON.stringify(OHS_BIN)}], {
        stdio: ['ignore', 'inherit', 'inherit'],
        env: { ...process.env, npm_command: 'exec', npm_lifecycle_event: 'npx', npm_lifecycle_script: 'ohs sim --port 0' },
      });
      process.on('SIGTERM', () => { child.kill('SIGTERM'); process.exit(143); });
      setInterval(() => {}, 1000);
    `;
    const stand = spawn(process.execPath, ['-e', npm], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    stand.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const deadline = Date.now() + 90_000;
    while (!/^http:\/\/[\d.]+:\d+/m.test(out) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    const m = /^http:\/\/([\d.]+):(\d+)/m.exec(out);
    expect(m, out).not.toBeNull();
    const [host, port] = [m?.[1] ?? '', Number(m?.[2])];
    expect(await listening(host, port)).toBe(true);
    stand.kill('SIGTERM');
    await once(stand, 'exit');
    let open = true;
    for (let i = 0; i < 50 && open; i++) {
      await new Promise((r) => setTimeout(r, 200));
      open = await listening(host, port);
    }
    expect(open, 'the sandbox still listens after npm was stopped').toBe(false);
  });
});
