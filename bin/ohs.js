#!/usr/bin/env node
// The CLI is built into dist/ by `npm install` (the `prepare` script): tsc, then one bundle in
// dist/cli/ (rolldown.config.mjs says why).
// On Node 22.1 and later, V8's compile cache (in the system's temporary folder) spares each
// start the compilation of the modules it loads: about 20% of the CPU of `ohs status` on Node 24.
// It must be switched on before those modules load, hence the dynamic import below. Node 20 has
// no such cache and ignores this.
import { readFileSync } from 'node:fs';
import module from 'node:module';

module.enableCompileCache?.();

/**
 * Under npx (`npm exec`, which sets npm_command=exec and npm_lifecycle_script), npm runs this file through `sh -c`, and a
 * SIGTERM to npm (`kill $!` after `npx ohs sim &`) reaches the shell, not this process: the
 * shell dies and this process, orphaned, would go on serving. So it watches its parent (and,
 * when the parent is a shell, the shell's parent: npm) and stops as on SIGTERM, by its own
 * handlers, when either is gone. Outside npx nothing is watched: `nohup ohs cron &` outlives its
 * shell on purpose.
 */
function stopWithNpx() {
  const parent = process.ppid;
  const watched = [parent];
  try {
    const stat = readFileSync(`/proc/${parent}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const grandparent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (/^(sh|dash|bash|zsh|ash|ksh)$/.test(comm) && grandparent > 1) watched.push(grandparent);
  } catch {
    // No /proc (macOS): the parent alone.
  }
  const alive = (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return err.code !== 'ESRCH';
    }
  };
  const timer = setInterval(() => {
    if (process.ppid === parent && watched.every(alive)) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, 500);
  timer.unref();
}

// npx sets the command it runs in npm_lifecycle_script ('ohs sim --port 8787'); an ohs started by
// something else npx ran (a test runner) inherits npm_command=exec but not that.
if (process.env.npm_command === 'exec' && /^ohs(\s|$)/.test(process.env.npm_lifecycle_script ?? ''))
  stopWithNpx();

let main;
try {
  ({ main } = await import('../dist/cli/ohs.js'));
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/cli/ohs.js')) throw err;
  process.stderr.write(
    'ohs: NOT_BUILT: the CLI is not built (no dist/cli/ohs.js): run `npm run build` in the checkout\n',
  );
  process.exit(1);
}

main(process.argv).then((code) => {
  process.exitCode = code;
});
