#!/usr/bin/env node
/**
 * What `npm test` runs before vitest: the build the tests spawn (tsc, the type check of everything
 * and dist/ in one pass, then rolldown's CLI bundle) and, beside it, the checks that read only the
 * sources: Biome, the layers (dependency-cruiser) and knip. tsc runs on one core for about 40 s;
 * the checks (about 20 s of CPU together) take the other core meanwhile instead of following it.
 * Each step's output is printed whole, in this order, once all have ended; the exit code is 1 when
 * any step failed, and vitest does not start.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => `${root}node_modules/.bin/${name}`;

/** Runs a command to its end: its exit code and its output (stdout unless `quiet`, and stderr). */
function run(name, command, args, quiet = false) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    if (!quiet) child.stdout.on('data', (d) => (out += d));
    else child.stdout.resume();
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (err) => resolve({ name, code: 1, out: `${out}${err.message}\n` }));
    child.on('close', (code) => resolve({ name, code: code ?? 1, out }));
  });
}

const build = (async () => {
  const tsc = await run('tsc -p .', bin('tsc'), ['-p', '.']);
  if (tsc.code !== 0) return [tsc];
  return [tsc, await run('rolldown -c', bin('rolldown'), ['-c', '--logLevel', 'warn'], true)];
})();
const checks = [
  run('biome check .', bin('biome'), ['check', '.']),
  run('npm run layers', 'npm', ['run', '--silent', 'layers']),
  run('npm run knip', 'npm', ['run', '--silent', 'knip']),
];
const results = [...(await build), ...(await Promise.all(checks))];
let failed = 0;
for (const r of results) {
  if (r.out.trim() !== '') process.stdout.write(r.out.endsWith('\n') ? r.out : `${r.out}\n`);
  if (r.code !== 0) {
    failed++;
    process.stderr.write(`npm test: ${r.name} failed (exit ${r.code})\n`);
  }
}
process.exit(failed === 0 ? 0 : 1);
