#!/usr/bin/env node
// The CLI is built into dist/ by `npm install` (the `prepare` script): tsc, then one bundle in
// dist/cli/ (rolldown.config.mjs says why).
// On Node 22.1 and later, V8's compile cache (in the system's temporary folder) spares each
// start the compilation of the modules it loads: about 20% of the CPU of `ohs status` on Node 24.
// It must be switched on before those modules load, hence the dynamic import below. Node 20 has
// no such cache and ignores this.
import module from 'node:module';

module.enableCompileCache?.();
const { main } = await import('../dist/cli/ohs.js');

main(process.argv).then((code) => {
  process.exitCode = code;
});
