#!/usr/bin/env node
// The compiled CLI lives in dist/ (built by `npm install` through the `prepare` script).
// On Node 22.1 and later, V8's compile cache (in the system's temporary folder) spares each
// start the compilation of the modules it loads: about 20% of the CPU of `ohs status` on Node 24.
// It must be switched on before those modules load, hence the dynamic import below. Node 20 has
// no such cache and ignores this.
import module from 'node:module';

module.enableCompileCache?.();
const { main } = await import('../dist/src/cli.js');

main(process.argv).then((code) => {
  process.exitCode = code;
});
