import { rmSync } from 'node:fs';
import { defineConfig } from 'rolldown';

/**
 * The CLI as shipped: `tsc` compiles src/ to dist/src/, then this bundles the CLI from there into
 * dist/cli/ (what bin/ohs.js loads). One module graph of a few files instead of about 500 (kysely
 * alone is 279 ESM files, zod and commander more): `ohs status` starts in 0.17 s of CPU instead
 * of 0.33 on Node 20, where V8's compile cache does not exist. Every `ohs` of the nightly job, of
 * a script, of the test suite pays that start.
 *
 * Each command, and each mirror engine, stays its own chunk, loaded on first use as before (the
 * dynamic imports of src/cli.ts and src/mirror/open.ts). Left outside the bundle, loaded from
 * node_modules as before: native drivers (better-sqlite3, pg's optional native part), packages
 * that load files of their own at run time (pino's transports, exceljs), and undici (required
 * lazily by the transport), and vega / vega-lite (the HTML pages' charts: ESM imported on first
 * chart, so no other command loads them).
 */
rmSync('dist/cli', { recursive: true, force: true });

export default defineConfig({
  input: { ohs: 'dist/src/cli.js' },
  platform: 'node',
  external: [/^node:/, /^better-sqlite3/, /^pg(-|$)/, 'exceljs', /^pino/, 'undici', /^vega/],
  output: {
    dir: 'dist/cli',
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
  },
});
