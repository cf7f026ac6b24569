import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { AtRiskProduct } from '../src/reports/accounts-at-risk/product.js';
import type { RollforwardProduct } from '../src/reports/ar-rollforward/facts.js';
import type { CatchUpProduct } from '../src/reports/catch-up/product.js';
import type { ChangesFacts } from '../src/reports/changes/index.js';
import type { ComplianceProduct } from '../src/reports/compliance/figures.js';
import type { ProductOf } from '../src/reports/index.js';
import type { AgeingProduct } from '../src/reports/order-ageing/summary.js';
import type { UnpaidProduct } from '../src/reports/unpaid-invoices/summary.js';

/**
 * Nothing under src/ reads a report's sheet by its name or a report's CSV back: a report
 * publishes its typed product (`facts` of its build), its sheets are views of it, and its page,
 * the dashboard, the run's controls, the reports built on it and the notices read that product.
 * The greps below find the ways it was done before; each is shown failing on a planted file.
 */
const RULES: { name: string; test: RegExp; where?: (file: string) => boolean }[] = [
  // sheets.find((s) => s.name === 'By org'), written.sheets.find(...), sheets.some((x) => x.name ...)
  {
    name: 'a sheet found by its name',
    test: /\w*[sS]heets?\w*\??\.\s*(?:find|filter|some|findIndex|findLast)\(\s*\(?\s*(\w+)\s*\)?\s*=>\s*\1\.name\b/,
  },
  // the page helper of old: sheet(sheets, 'YTD by org')
  { name: 'a sheet found by its name', test: /\bsheet\(\s*sheets\b/ },
  // a map of a report's sheets read by name: result.sheets.get('YTD by org')
  { name: "a report's sheets read by name", test: /\bsheets\??\.get\(/ },
  // a CSV read back: a file named .csv read, or the CSV parser outside the readers of input files
  {
    name: "a report's CSV read back",
    test: /\b(?:readFile|readFileSync|createReadStream|open)\([^)\n]*(?:\.csv\b|reportStem\()/,
  },
  {
    name: "a report's CSV read back",
    test: /from\s+'csv-parse/,
    where: (file) => !file.startsWith(`input${sep}`),
  },
  {
    name: "a report's CSV read back",
    test: /from\s+'[./]*(?:\.\.\/)*input\/read-table\.js'/,
    where: (file) => /^(?:app|reports|render)[\\/]/.test(file),
  },
];

interface Finding {
  file: string;
  line: number;
  rule: string;
  text: string;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** Every line under `root` (a src/ folder) that reads a report's sheet by name or its CSV back. */
function sheetReads(root: string): Finding[] {
  const found: Finding[] = [];
  for (const path of sourceFiles(root)) {
    const file = relative(root, path);
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((text, i) => {
        for (const rule of RULES)
          if ((rule.where?.(file) ?? true) && rule.test.test(text))
            found.push({ file, line: i + 1, rule: rule.name, text: text.trim() });
      });
  }
  return found;
}

const temp = mkdtempSync(join(tmpdir(), 'ohs-sheet-reads-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("no report's sheet read by its name, no report's CSV read back", () => {
  it('src/ has none', () => {
    const found = sheetReads('src');
    expect(
      found.map((f) => `${f.file}:${f.line}: ${f.rule}: ${f.text}`),
      'read the typed product (facts) instead',
    ).toEqual([]);
  });

  it('fails on a planted read of each kind, in a copy of a real file too', () => {
    const root = join(temp, 'src');
    mkdirSync(join(root, 'app'), { recursive: true });
    mkdirSync(join(root, 'reports', 'x'), { recursive: true });
    mkdirSync(join(root, 'input'), { recursive: true });
    const controls = readFileSync(join('src', 'app', 'controls.ts'), 'utf8');
    const planted: [string, string, string][] = [
      [
        'app/controls.ts',
        `${controls}\nconst t = run[0]?.written.sheets.find((s) => s.name === 'By org');\n`,
        'a sheet found by its name',
      ],
      [
        'reports/x/html.ts',
        "const ytd = sheet(sheets, 'YTD by org')?.rows ?? [];\n",
        'a sheet found by its name',
      ],
      [
        'reports/x/lines.ts',
        "for (const r of result.sheets.get('By org') ?? []) n++;\n",
        "a report's sheets read by name",
      ],
      [
        'app/notice.ts',
        "const text = await readFile(join(dir, 'changes-' + stem + '.csv'), 'utf8');\n",
        "a report's CSV read back",
      ],
      ['app/notice-parse.ts', "import { parse } from 'csv-parse/sync';\n", "a report's CSV read back"],
      [
        'app/notice-table.ts',
        "import { readTable } from '../input/read-table.js';\n",
        "a report's CSV read back",
      ],
    ];
    for (const [file, text] of planted) writeFileSync(join(root, file), text);
    // The readers of the user's input files may parse a CSV: not a report's read back.
    writeFileSync(join(root, 'input', 'read-table.ts'), "import { parse } from 'csv-parse/sync';\n");
    const byFile = (a: string[], b: string[]) => String(a[0]).localeCompare(String(b[0]));
    const found = sheetReads(root).map((f) => [f.file.split(sep).join('/'), f.rule]);
    expect(found.sort(byFile)).toEqual(planted.map(([file, , rule]) => [file, rule]).sort(byFile));
    // The copy of the real file alone is clean: what was found is the planted line.
    writeFileSync(join(root, 'app', 'controls.ts'), controls);
    expect(sheetReads(root).some((f) => f.file === join('app', 'controls.ts'))).toBe(false);
  });

  it('the application reads each product as the type its report declares (tsc checks these)', () => {
    expectTypeOf<ProductOf<'compliance'>>().toEqualTypeOf<ComplianceProduct>();
    expectTypeOf<ProductOf<'unpaid-invoices'>>().toEqualTypeOf<UnpaidProduct>();
    expectTypeOf<ProductOf<'order-ageing'>>().toEqualTypeOf<AgeingProduct>();
    expectTypeOf<ProductOf<'catch-up'>>().toEqualTypeOf<CatchUpProduct>();
    expectTypeOf<ProductOf<'ar-rollforward'>>().toEqualTypeOf<RollforwardProduct>();
    expectTypeOf<ProductOf<'accounts-at-risk'>>().toEqualTypeOf<AtRiskProduct>();
    expectTypeOf<ProductOf<'changes'>>().toEqualTypeOf<ChangesFacts>();
    // Never `never`: a property of a product read by the application is its own.
    expectTypeOf<ProductOf<'unpaid-invoices'>['openBalance']>().toEqualTypeOf<number>();
  });
});
