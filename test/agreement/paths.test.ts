import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { startSim } from '../../src/sim/index.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { withMirror } from '../helpers/mirror.js';
import { READ_TOKEN, TEST_ANCHOR, WRITE_TOKEN } from '../helpers/sim.js';
import { workdir } from '../helpers/writeback.js';
import { type CsvRow, expectedFromCsvs, fileOf, linesOfKinds, readCsv } from '../reports/changes-helpers.js';

/**
 * The agreement suite: for each fact, every path to it agrees, over sandbox states
 * generated at random (fast-check: a new seed each run, printed on failure; scale 0.02; one
 * sandbox synced into every engine under test, the syncs reused across the paths):
 * - `report all` against each report asked alone (CSV bytes, verdict file);
 * - the page, the workbook, the verdict file (the dashboard's) and the terminal: the run's
 *   controls (app/controls.ts) all agree, and each verdict is the terminal's line;
 * - SQLite against PostgreSQL (the reports that read no sync time);
 * - a past instant asked again after a later sync (every report's CSV);
 * - the changes report against the difference of its base reports;
 * - the BI view `v_invoice_open` against the A/R report.
 * A disagreement fails naming the fact and both values. Rows compared are counted per path and
 * printed at the end (the note's figures).
 */
const env = { OHS_TOKEN: WRITE_TOKEN, OHS_DB: '', OHS_LOG_LEVEL: '' };
const REPORTS = [
  'compliance',
  'catch-up',
  'unpaid-invoices',
  'order-ageing',
  'accounts-at-risk',
  'ar-rollforward',
  'changes',
];
/** Reports whose figures read no sync time (order ageing ages from when a sync saw a status). */
const ENGINE_FREE = ['compliance', 'catch-up', 'unpaid-invoices', 'accounts-at-risk'];
const compared = new Map<string, number>();
const count = (path: string, n: number) => compared.set(path, (compared.get(path) ?? 0) + n);

afterAll(() => {
  const lines = [...compared.entries()].map(([p, n]) => `  ${p}: ${n} rows`);
  console.log(`agreement: ${compared.size} paths compared\n${lines.join('\n')}`);
});

async function ohs(dir: string, args: string[]) {
  const r = await runOhs(args, { cwd: dir, env, timeoutMs: 240_000 });
  expect(r.code, `ohs ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

/** The instant a second after now, once it has passed: an instant the mirror's history holds whole. */
async function nextSecond(): Promise<string> {
  const t = Math.ceil((Date.now() + 1500) / 1000) * 1000;
  while (Date.now() <= t) await new Promise((r) => setTimeout(r, 50));
  return new Date(t).toISOString();
}

/** Files of a report in a folder by its name (`NAME-…`, not `NAME-trend-…`), with a suffix. */
function filesOf(dir: string, name: string, suffix: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith(`${name}-`) && !f.startsWith(`${name}-trend`) && f.endsWith(suffix))
    .sort();
}
const one = (dir: string, name: string, suffix: string) => {
  const f = filesOf(dir, name, suffix);
  expect(f, `${name}*${suffix} in ${dir}`).toHaveLength(1);
  return readFileSync(join(dir, f[0] as string), 'utf8');
};
const summaryOf = (dir: string, name: string) =>
  JSON.parse(one(dir, name, '.summary.json')) as {
    level: string;
    verdict: string;
    figures: { label: string; value: string }[];
  };

/** Two texts equal, or the fact and both first differing lines named. */
function agree(fact: string, a: string, b: string, path: string): void {
  const la = a.split('\n');
  const lb = b.split('\n');
  const i = la.findIndex((l, k) => l !== lb[k]);
  const at = i === -1 ? la.length : i;
  expect(
    i === -1 && la.length === lb.length,
    `${fact}: line ${at + 1}: ${JSON.stringify(la[at])} against ${JSON.stringify(lb[at])}`,
  ).toBe(true);
  count(path, la.length - 1);
}

describe('every path to a fact agrees', () => {
  const targets = new Map(engines.map((e) => [e, withTargets(e)] as const));

  it('report all and alone, page and workbook and dashboard and terminal, the engines, a past instant again, changes, the BI view', async () => {
    const seed = Number(process.env.OHS_AGREEMENT_SEED ?? Math.floor(Math.random() * 2 ** 31));
    console.log(`agreement: fast-check seed ${seed} (OHS_AGREEMENT_SEED=${seed} runs it again)`);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 2, max: 8 }),
        async (simSeed, size) => {
          const sim = await startSim({
            anchorDate: TEST_ANCHOR,
            token: WRITE_TOKEN,
            readonlyToken: READ_TOKEN,
            hooks: true,
            scale: 0.02,
            seed: simSeed,
          });
          try {
            const dirs = new Map<string, string>();
            for (const engine of engines) {
              const { dir } = workdir(sim.url, await (targets.get(engine) as () => Promise<string>)());
              dirs.set(engine, dir);
              await ohs(dir, ['sync']);
            }
            const T = await nextSecond();
            // Every engine: report all at T (its controls, terminal, pages) and the BI view; the
            // paths that ask more of the CLI on the first engine only (the cost of the file).
            for (const [engine, dir] of dirs) await pathsAt(engine, dir, T, engine === engines[0]);
            // SQLite against PostgreSQL: the same sandbox, the same instant.
            const [first, ...rest] = [...dirs.entries()];
            for (const [engine, dir] of rest)
              for (const name of ENGINE_FREE)
                agree(
                  `${name} CSV: ${first?.[0]} against ${engine}`,
                  one(join(first?.[1] as string, 'all'), name, '.csv'),
                  one(join(dir, 'all'), name, '.csv'),
                  'SQLite against PostgreSQL (CSV rows)',
                );
            // A later sync after changes upstream: the past instant asked again, and the changes.
            sim.mutate(size);
            for (const [, dir] of dirs) await afterLaterSync(dir, T);
          } finally {
            await sim.close();
          }
        },
      ),
      { numRuns: 1, seed },
    );
  });

  /** The paths of one engine at the instant T, before any later sync. */
  async function pathsAt(engine: string, dir: string, T: string, alone: boolean): Promise<void> {
    const all = await ohs(dir, [
      'report',
      'all',
      '--as-of-time',
      T,
      '--format',
      'xlsx,csv,html',
      '--out',
      'all',
    ]);
    const outAll = join(dir, 'all');
    // The controls: every page, workbook and verdict file of the run agree (app/controls.ts).
    const controls = readCsv(join(outAll, filesOf(outAll, 'controls', '.csv')[0] as string));
    for (const c of controls)
      expect(c.agree, `${engine}: ${c.figure}: ${c.pathA} ${c.valueA}, ${c.pathB} ${c.valueB}`).toBe('true');
    count('page, workbook and dashboard (controls)', controls.length);
    expect(all.stderr).toMatch(/controls: OK/);
    for (const name of REPORTS) {
      const s = summaryOf(outAll, name);
      // The terminal's line is the verdict the page and the dashboard show.
      expect(all.stderr, `${engine}: ${name}'s verdict on the terminal`).toContain(`${name}: `);
      expect(all.stderr.replace(/\s+/g, ' '), `${engine}: ${name}'s verdict on the terminal`).toContain(
        s.verdict.slice(0, 80).replace(/\s+/g, ' '),
      );
      // Every headline figure is on its page.
      const html = one(outAll, name, '.html');
      for (const f of s.figures)
        expect(html, `${engine}: ${name} page: figure ${f.label} ${f.value}`).toContain(
          f.value.replace('&', '&amp;'),
        );
      count('summary.json against terminal and page', s.figures.length + 1);
    }
    // Each report asked alone (at once: they only read): the same rows and verdict as in `report all`.
    if (alone)
      await Promise.all(
        REPORTS.map((name) =>
          ohs(dir, ['report', name, '--as-of-time', T, '--format', 'csv,html', '--out', `alone-${name}`]),
        ),
      );
    for (const name of alone ? REPORTS : []) {
      const aloneDir = join(dir, `alone-${name}`);
      agree(
        `${engine}: ${name} CSV: report all against alone`,
        one(outAll, name, '.csv'),
        one(aloneDir, name, '.csv'),
        'report all against alone (CSV rows)',
      );
      const a = summaryOf(outAll, name);
      const b = summaryOf(aloneDir, name);
      expect(b.figures, `${engine}: ${name} figures: report all against alone`).toEqual(a.figures);
      expect(b.verdict, `${engine}: ${name} verdict: report all against alone`).toBe(a.verdict);
      count('report all against alone (figures)', a.figures.length);
    }
    // The BI view against the A/R report (the mirror now is the mirror at T: no sync since).
    const ar = summaryOf(outAll, 'unpaid-invoices');
    const fig = (label: string) => ar.figures.find((f) => f.label === label)?.value;
    const db = JSON.parse(readFileSync(join(dir, 'config', 'local.json'), 'utf8')).db as string;
    const view = await withMirror(
      db,
      async (m) =>
        (
          await sql<{
            n: number | string;
            cents: number | string | null;
          }>`select count(*) as n, sum(round(balance * 100)) as cents from v_invoice_open`.execute(m.db)
        ).rows[0],
    );
    const cents = Number(view?.cents ?? 0);
    const money = `${cents < 0 ? '-' : ''}$${(Math.abs(cents) / 100).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
    expect(`${Number(view?.n)} invoices, ${money}`, `${engine}: v_invoice_open against unpaid-invoices`).toBe(
      `${fig('Open invoices')} invoices, ${fig('Open balance')}`,
    );
    count('BI view against report (invoices)', Number(view?.n));
  }

  /** After a later sync: T asked again gives the same files; changes = the base reports' difference. */
  async function afterLaterSync(dir: string, T: string): Promise<void> {
    await ohs(dir, ['sync']);
    const T2 = await nextSecond();
    await ohs(dir, ['report', 'all', '--as-of-time', T, '--format', 'csv', '--out', 'again']);
    for (const name of REPORTS)
      agree(
        `${name} CSV at ${T}: before and after a later sync`,
        one(join(dir, 'all'), name, '.csv'),
        one(join(dir, 'again'), name, '.csv'),
        'a past instant after a later sync (CSV rows)',
      );
    await ohs(dir, ['report', 'all', '--as-of-time', T2, '--format', 'csv', '--out', 'later']);
    const bases = (out: string, at: string) => {
      const csv = (name: string) => readCsv(fileOf(join(dir, out), `${name}-${at.slice(0, 10)}`, '.csv'));
      return { catchUp: csv('catch-up'), unpaid: csv('unpaid-invoices'), ageing: csv('order-ageing') };
    };
    await ohs(dir, [
      'report',
      'changes',
      '--since',
      T,
      '--as-of-time',
      T2,
      '--format',
      'csv',
      '--out',
      'changes',
    ]);
    const rows: CsvRow[] = readCsv(
      join(dir, 'changes', filesOf(join(dir, 'changes'), 'changes', '.csv')[0] as string),
    );
    const expected = expectedFromCsvs(bases('all', T), bases('later', T2));
    expect(linesOfKinds(rows), `changes ${T} to ${T2} against the difference of its base reports`).toEqual(
      expected,
    );
    count('changes against its base reports (lines)', expected.length);
  }
});
