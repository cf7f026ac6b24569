import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The layer rules of .dependency-cruiser.cjs, as `npm test` runs them (`npm run layers`), and the
 * one Biome adds (lint/no-computed-import.grit): a copy of src/ with one bad import planted per
 * rule fails with exactly the planted violations, each naming its rule, so the source tree itself
 * has none. One dependency-cruiser run over the copy holds every plant (each is told apart by its
 * rule's name and its file).
 */
const root = resolve(import.meta.dirname, '..');
// The packages' own CLIs, as `npm run layers` and `npm run lint` run them.
const depcruise = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const biome = join(root, 'node_modules/@biomejs/biome/bin/biome');

function run(cwd: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd, encoding: 'utf8' }, (err, stdout, stderr) =>
      done({ code: err === null ? 0 : Number(err.code), out: stdout + stderr }),
    );
  });
}

/** The bad imports, by file: what each holds, and the violations it must give (rule: from → to). */
const plants: Record<string, { text: string; expect: string[] }> = {
  // A report reaching another through a file loose beside the folders (a "shared" re-export).
  'src/reports/common.ts': {
    text: "export { complianceReport } from './compliance/index.js';\n",
    expect: ['outside-the-layers: src/reports/common.ts → src/reports/compliance/index.ts'],
  },
  'src/reports/unpaid-invoices/planted-common.ts': {
    text: "import { complianceReport } from '../common.js';\nexport const x = complianceReport;\n",
    expect: [
      'layer-reports: src/reports/unpaid-invoices/planted-common.ts → src/reports/common.ts',
      'report-unpaid-invoices: src/reports/unpaid-invoices/planted-common.ts → src/reports/common.ts',
    ],
  },
  // A report folder importing the registry (and through it every report).
  'src/reports/order-ageing/planted-registry.ts': {
    text: "import { reports } from '../index.js';\nexport const n = reports.length;\n",
    expect: ['report-order-ageing: src/reports/order-ageing/planted-registry.ts → src/reports/index.ts'],
  },
  // A template import() of a folder the report is not built on.
  'src/reports/compliance/planted-template.ts': {
    text: 'export const load = () => import(`../unpaid-invoices/index.js`);\n',
    expect: [
      'report-compliance: src/reports/compliance/planted-template.ts → src/reports/unpaid-invoices/index.ts',
    ],
  },
  // lazyRequire outside src/util/, of a report folder.
  'src/app/planted-lazy.ts': {
    text: "import { lazyRequire } from '../util/lazy-require.js';\nexport const c = lazyRequire<unknown>('../reports/compliance/index.js');\n",
    expect: [
      'lazy-require-in-util: src/app/planted-lazy.ts → src/util/lazy-require.ts',
      'lazy-require-in-util-exotic: src/app/planted-lazy.ts → src/reports/compliance/index.ts',
      'report-through-registry: src/app/planted-lazy.ts → src/reports/compliance/index.ts',
    ],
  },
  // The core importing a report folder, and the registry.
  'src/reports/core/planted.ts': {
    text: "export { complianceReport } from '../compliance/index.js';\nexport { reports } from '../index.js';\n",
    expect: [
      'report-core: src/reports/core/planted.ts → src/reports/compliance/index.ts',
      'report-core: src/reports/core/planted.ts → src/reports/index.ts',
    ],
  },
  // A folder importing one it is not built on (type-only imports count).
  'src/reports/catch-up/planted.ts': {
    text: "import type { UnpaidFacts } from '../unpaid-invoices/summary.js';\nexport type X = UnpaidFacts;\n",
    expect: ['report-catch-up: src/reports/catch-up/planted.ts → src/reports/unpaid-invoices/summary.ts'],
  },
  // A folder not in builtOn importing another.
  'src/reports/newreport/index.ts': {
    text: "export { complianceReport } from '../compliance/index.js';\n",
    expect: ['report-undeclared: src/reports/newreport/index.ts → src/reports/compliance/index.ts'],
  },
  // The application importing a report's inner file, not through the registry.
  'src/app/planted-inner.ts': {
    text: "export { complianceFigures } from '../reports/compliance/figures.js';\n",
    expect: ['report-through-registry: src/app/planted-inner.ts → src/reports/compliance/figures.ts'],
  },
  // A layer importing one above it, and a type-only cycle.
  'src/mirror/planted-leak.ts': {
    text: "import { reports } from '../reports/index.js';\nexport const n = reports.length;\n",
    expect: ['layer-mirror: src/mirror/planted-leak.ts → src/reports/index.ts'],
  },
  'src/util/planted-a.ts': {
    text: "import type { B } from './planted-b.js';\nexport type A = B | 1;\n",
    expect: ['no-circular: src/util/planted-a.ts → src/util/planted-b.ts'],
  },
  'src/util/planted-b.ts': {
    text: "import type { A } from './planted-a.js';\nexport type B = { a: A };\n",
    expect: [], // the cycle is one violation, named by its first file
  },
};

/** A computed import() (lines 2 and 3) beside literal ones (lines 4 and 5), for Biome. */
const computed = [
  "const name = 'compliance';",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the planted file's own template import()
  'export const a = () => import(`../reports/${name}/index.js`);',
  'export const b = (path: string) => import(path);',
  "export const c = () => import('../reports/index.js');",
  'export const d = () => import(`../reports/index.js`);',
  '',
].join('\n');

describe('layers (dependency-cruiser, and Biome for a computed import())', () => {
  let fixture = '';
  let cruised: Promise<{ code: number; out: string }>;
  let linted: Promise<{ code: number; out: string }>;

  beforeAll(() => {
    fixture = mkdtempSync(join(tmpdir(), 'ohs-layers-'));
    cpSync(join(root, 'src'), join(fixture, 'src'), { recursive: true });
    for (const f of ['tsconfig.json', 'biome.json', '.gitignore', 'lint'])
      cpSync(join(root, f), join(fixture, f), { recursive: true });
    const put = (file: string, text: string) => {
      mkdirSync(dirname(join(fixture, file)), { recursive: true });
      writeFileSync(join(fixture, file), text);
    };
    for (const [file, { text }] of Object.entries(plants)) put(file, text);
    put('src/app/planted-computed.ts', computed);
    // Both at once: the cruise is a few seconds of CPU, mostly TypeScript's parser.
    const config = join(root, '.dependency-cruiser.cjs');
    cruised = run(fixture, [depcruise, 'src', '--config', config, '--output-type', 'err']);
    linted = run(fixture, [biome, 'lint', '--max-diagnostics=none', 'src/app/planted-computed.ts']);
  });
  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  it('fails on each planted import, naming its rule, and on nothing else of src/', async () => {
    const { code, out } = await cruised;
    expect(code).not.toBe(0);
    // `error RULE: FROM → TO` (a cycle: `→` then its files, one a line; its first step is kept).
    const found = [...out.matchAll(/^\s*error (\S+): (\S+) →\s+(\S+)/gm)]
      .map((m) => `${m[1]}: ${m[2]} → ${m[3]}`)
      .sort();
    const expected = Object.values(plants)
      .flatMap((p) => p.expect)
      .sort();
    expect(found).toEqual(expected);
    // Every rule of the report layer is shown failing.
    const rules = new Set(found.map((f) => f.split(':')[0]));
    for (const rule of [
      'report-core',
      'report-compliance',
      'report-unpaid-invoices',
      'report-order-ageing',
      'report-catch-up',
      'report-undeclared',
      'report-through-registry',
      'lazy-require-in-util',
      'lazy-require-in-util-exotic',
      'outside-the-layers',
    ])
      expect(rules).toContain(rule);
  });

  it('refuses an import() of a computed name, and only that', async () => {
    const { code, out } = await linted;
    expect(code).not.toBe(0);
    const lines = [...out.matchAll(/planted-computed\.ts:(\d+):\d+ plugin/g)].map((m) => Number(m[1]));
    expect(lines).toEqual([2, 3]);
    expect(out).toContain('no-computed-import: import() of a name computed at run time');
  });
});
