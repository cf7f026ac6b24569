import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The layer rules of .dependency-cruiser.cjs, as `npm test` runs them (`npm run layers`): the
 * real tree passes, and a tree with an import against a rule fails, naming the rule.
 */
const root = resolve(import.meta.dirname, '..');
const config = join(root, '.dependency-cruiser.cjs');
// The package's own CLI, as `npm run layers` runs it (node_modules/.bin/depcruise).
const depcruise = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

function cruise(cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [depcruise, 'src', '--config', config, '--output-type', 'err'],
      { cwd, encoding: 'utf8' },
      (err, stdout, stderr) => done({ code: err === null ? 0 : Number(err.code), out: stdout + stderr }),
    );
  });
}

describe('layers (dependency-cruiser)', () => {
  let fixture = '';
  let real: Promise<{ code: number; out: string }>;
  let leaky: Promise<{ code: number; out: string }>;

  beforeAll(() => {
    // A tree of four files: src/mirror importing src/reports (above it), and a type-only cycle.
    fixture = mkdtempSync(join(tmpdir(), 'ohs-layers-'));
    const put = (file: string, text: string) => {
      mkdirSync(dirname(join(fixture, file)), { recursive: true });
      writeFileSync(join(fixture, file), text);
    };
    put('src/reports/report.ts', 'export const x = 1;\n');
    put('src/mirror/leak.ts', "import { x } from '../reports/report.js';\nexport const y = x;\n");
    put('src/util/a.ts', "import type { B } from './b.js';\nexport type A = B | 1;\n");
    put('src/util/b.ts', "import type { A } from './a.js';\nexport type B = { a: A };\n");
    cpSync(join(root, 'tsconfig.json'), join(fixture, 'tsconfig.json'));
    // Both at once: each is a few seconds of CPU, mostly TypeScript's parser.
    real = cruise(root);
    leaky = cruise(fixture);
  });
  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  it('passes on the source tree', async () => {
    const { code, out } = await real;
    expect(out).toContain('no dependency violations found');
    expect(code).toBe(0);
  });

  it('fails on an import against a layer rule and on a cycle, naming each rule', async () => {
    const { code, out } = await leaky;
    expect(code).not.toBe(0);
    expect(out).toMatch(/error layer-mirror: src\/mirror\/leak\.ts → src\/reports\/report\.ts/);
    expect(out).toMatch(/error no-circular: src\/util\/a\.ts → /);
    expect(out).toContain('2 dependency violations');
  });
});
