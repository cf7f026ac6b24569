import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { docLines, REPO } from './helpers/doc-lines.js';

/**
 * The README's sandbox line, run by a shell as written (in the checkout, its port changed to a
 * free one): started in the background, stopped with `kill $!`, started again on the same port,
 * with nothing left listening (no orphan); a third start while the second listens is one line,
 * PORT_IN_USE, saying what to do.
 */
const dir = mkdtempSync(join(tmpdir(), 'ohs-readme-sim-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

describe("the README's sandbox line", () => {
  it('starts, stops with kill $!, starts again on the same port, leaves no orphan; a held port is one line', async () => {
    const line = docLines().find((l) => l.doc === 'README.md' && / sim --port 8787 &$/.test(l.text));
    expect(line, 'the README starts the sandbox on port 8787 in the background').toBeDefined();
    const port = await freePort();
    // As written, on a free port, its output into a file (before the line's `&`).
    const start = (file: string) =>
      (line?.text ?? '')
        .replace('--port 8787', `--port ${port}`)
        .replace(/ &$/, ` >${dir}/${file}.out 2>${dir}/${file}.err &`);
    // Each step's outcome on its own line of stdout; the sandbox's output in files.
    const script = `
      set -u
      cd ${JSON.stringify(REPO)}
      up() { for i in $(seq 1 300); do grep -q '^http://' "$1" 2>/dev/null && return 0; sleep 0.2; done; return 1; }
      listening() { node -e 'const s=require("net").connect(${port},"127.0.0.1");s.on("connect",()=>process.exit(0));s.on("error",()=>process.exit(1))'; }
      ${start('one')}
      up ${dir}/one.out && echo "first: up"
      kill $!
      wait $!; echo "first: exit $?"
      listening && echo "after kill: still listening" || echo "after kill: nothing listens"
      ${start('two')}
      two=$!
      up ${dir}/two.out && echo "second: up"
      ${start('three')}
      wait $!; echo "third: exit $?"
      kill $two
      wait $two; echo "second: exit $?"
      listening && echo "end: still listening" || echo "end: nothing listens"
    `;
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { timeout: 240_000 });
    expect(stdout.trim().split('\n')).toEqual([
      'first: up',
      'first: exit 0',
      'after kill: nothing listens',
      'second: up',
      'third: exit 1',
      'second: exit 0',
      'end: nothing listens',
    ]);
    const third = readFileSync(join(dir, 'three.err'), 'utf8');
    expect(third).toMatch(
      new RegExp(`^ohs: PORT_IN_USE: port ${port} of 127\\.0\\.0\\.1 is in use: [^\\n]+\\n$`),
    );
  }, 300_000);
});
