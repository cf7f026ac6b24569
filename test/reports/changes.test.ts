import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { SimRecord } from '../../src/sim/index.js';
import { describeEngines, withTargets } from '../helpers/engines.js';
import { TEST_ANCHOR, WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { workdir, writeCsv } from '../helpers/writeback.js';
import {
  type CsvRow,
  expectedFromCsvs,
  fileOf,
  linesOfKinds,
  ohsAt,
  plain,
  readCsv,
} from './changes-helpers.js';

/**
 * `ohs report changes` end to end on the sandbox: known changes made upstream between two syncs
 * (the syncs' clocks set by libfaketime so the period crosses a midnight: invoices pass 60 and 90
 * days by the clock), found as exactly those lines, each with evidence naming a row of the base
 * reports at its end; a generated check over pairs of instants that the lines are the base
 * reports' CSV differences; the report of two past instants byte-identical when asked again;
 * a period before the history refused.
 */
const D = TEST_ANCHOR; // 2026-06-15
const SYNC1 = `${D}T23:00:00Z`;
const T1 = `${D}T23:30:00.000Z`;
const WRITE = `${D}T23:40:00Z`;
const SYNC2 = '2026-06-16T00:10:00Z';
const T2 = '2026-06-16T00:30:00.000Z';
const SYNC3 = '2026-06-16T01:10:00Z';
const T3 = '2026-06-16T01:30:00.000Z';
const env = { OHS_TOKEN: WRITE_TOKEN, OHS_DB: '', OHS_LOG_LEVEL: '' };

interface Bases {
  compliance: CsvRow[];
  catchUp: CsvRow[];
  unpaid: CsvRow[];
  ageing: CsvRow[];
}

describeEngines('%s: ohs report changes', {}, (engine) => {
  // A sandbox of its own per engine: the test changes it.
  const sim = withSim({ scale: 0.02 });
  const target = withTargets(engine);

  async function ohs(at: string, args: string[], dir: string) {
    const r = await ohsAt(at, args, { cwd: dir, env });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  }

  /** Every base report's CSV as of an instant (`report all`, the mirror read as known then). */
  async function basesAt(dir: string, at: string, out: string): Promise<Bases> {
    await ohs(T3, ['report', 'all', '--as-of-time', at, '--format', 'csv', '--out', out], dir);
    const day = at.slice(0, 10);
    const csv = (name: string) => readCsv(fileOf(join(dir, out), `${name}-${day}`, '.csv'));
    return {
      compliance: csv('compliance'),
      catchUp: csv('catch-up'),
      unpaid: csv('unpaid-invoices'),
      ageing: csv('order-ageing'),
    };
  }

  async function changes(dir: string, since: string, to: string, out: string, formats = 'csv') {
    const r = await ohsAt(
      T3,
      ['report', 'changes', '--since', since, '--as-of-time', to, '--format', formats, '--out', out],
      { cwd: dir, env },
    );
    expect(r.code, r.stderr).toBe(0);
    const file = fileOf(join(dir, out), 'changes-', '.csv');
    return { rows: readCsv(file), file, stderr: r.stderr };
  }

  /** Upstream, between the syncs: the known changes (ids returned). */
  async function changeUpstream(
    dir: string,
    before: Bases,
    ids: { A: string; P: string; Q: string; C: string },
  ) {
    const t = sim().tables;
    const { A, P, Q, C } = ids;
    // Upstream, between the syncs: an employer falls behind, one recovers.
    const through5 = before.compliance.filter((r) => r.month === '5');
    // Statuses as the CSV writes them: the code, then " (assumed rate)" when no policy is imported.
    const status = (r: CsvRow) => (r.drugStatus ?? '').split(' ')[0] ?? '';
    const F = through5.find((r) => ['ON_TRACK', 'MET'].includes(status(r)) && Number(r.pool) >= 20);
    const R = through5.find((r) => ['BEHIND', 'NOT_MET', 'AT_RISK'].includes(status(r)));
    expect(F, 'an employer on track').toBeDefined();
    expect(R, 'an employer behind').toBeDefined();
    for (const m of t.OrgMonth.all().filter((x) => String(x.label).startsWith('2026'))) {
      const pool = Number(m.countEligibleRandomPool);
      if (String(m.OrgId) === F?.orgId) t.OrgMonth.update(m.id, { countEligibleRandomPool: pool * 10 });
      if (String(m.OrgId) === R?.orgId)
        t.OrgMonth.update(m.id, {
          countPickedDrug: pool,
          countPickedDrugResult: pool,
          countPickedAlcohol: pool,
          countPickedAlcoholResult: pool,
        });
    }
    // A payment here (ohs plan + apply), one elsewhere, a cancellation, a new invoice.
    const pay = writeCsv(join(dir, 'payments.csv'), ['InvoiceId', 'amountToPay'], [[P, 10]]);
    await ohs(WRITE, ['plan', pay, '--op', 'payment'], dir);
    await ohs(WRITE, ['apply'], dir);
    t.Invoice.update(Q, { balance: 0 });
    t.Invoice.update(C, { dropInvoice: `https://files.example/invoice/${C}/void.pdf` });
    const template = t.Invoice.get(A) as SimRecord;
    const N = String(Number(t.Invoice.maxId()) + 1);
    // Invoice ids are text in the service.
    t.Invoice.insert({
      ...template,
      id: N,
      date: D,
      dateDue: '2026-07-15',
      balance: 123.45,
      lateFee: 0,
    });
    // Orders: one long open, new and stuck; one completed; one deleted upstream.
    const openItems = before.ageing.map((r) => r.orderItemId ?? '');
    const [O, X] = openItems.slice(0, 2) as [string, string];
    const item = t.OrderItem.get(Number(O)) as SimRecord;
    const S = Number(t.OrderItem.maxId()) + 2;
    t.OrderItem.insert({
      ...item,
      id: S,
      CreationTimestamp: '2026-04-01T08:00:00Z',
      c_currentStatusCodeId: 'ORD',
      c_currentStatusCodeName: 'Ordered',
      CurrentStatusId: 101,
      isNotModifiable: false,
    });
    t.OrderItem.update(Number(O), {
      c_currentStatusCodeId: 'CMP',
      c_currentStatusCodeName: 'Completed',
      CurrentStatusId: 106,
      isNotModifiable: true,
    });
    t.OrderItem.delete(Number(X));
    return { F, R, N, S, O, X };
  }

  /** Each line's evidence names a row of the base report at its end. */
  async function expectEvidence(dir: string, lines: CsvRow[], before: Bases, after: Bases) {
    // Each line's evidence names a row of the base report at its end.
    const roll = readCsv(
      join(
        dir,
        'c12',
        (
          await ohs(
            T3,
            ['report', 'ar-rollforward', '--from', T1, '--to', T2, '--format', 'csv', '--out', 'c12'],
            dir,
          )
        ).stdout
          .split('\n')
          .find((l) => l.includes('ar-rollforward-'))
          ?.split('/')
          .pop() ?? '',
      ),
    );
    const resolves = (ev: string, at: Bases) => {
      const [report, , key] = ev.split(' · ');
      const [field, value] = (key ?? '').split(' ');
      const rows: CsvRow[] =
        report === 'unpaid-invoices'
          ? field === 'org'
            ? [{ org: 'Total' }]
            : at.unpaid
          : report === 'order-ageing'
            ? at.ageing
            : report === 'catch-up'
              ? at.catchUp
              : report === 'compliance'
                ? at.compliance
                : report === 'ar-rollforward'
                  ? roll
                  : [];
      const f = field === 'orgId,' ? 'orgId' : (field ?? '');
      return rows.some((r) => plain(r[f]) === (value ?? '').replace(/,$/, ''));
    };
    for (const r of lines) {
      if (r.evidenceBefore !== '' && !r.evidenceBefore?.startsWith('mirror'))
        expect(resolves(r.evidenceBefore ?? '', before), `${r.kind} ${r.subject}: ${r.evidenceBefore}`).toBe(
          true,
        );
      if (
        /^(unpaid|order|catch|compl|ar-roll)/.test(r.evidenceAfter ?? '') &&
        !r.evidenceAfter?.includes(',')
      )
        expect(resolves(r.evidenceAfter ?? '', after), `${r.kind} ${r.subject}: ${r.evidenceAfter}`).toBe(
          true,
        );
    }
  }

  /** The generated check over pairs of instants (T1, T2 and a third after random changes). */
  async function generatedCheck(dir: string, before: Bases, after: Bases) {
    // The generated check: a third sync after random upstream changes; for pairs of the three
    // instants, the lines are the differences of the base reports' CSVs at both.
    sim().mutate(6);
    await ohs(SYNC3, ['sync', '--full'], dir);
    const bases = new Map<string, Bases>([
      [T1, before],
      [T2, after],
      [T3, await basesAt(dir, T3, 'b3')],
    ]);
    const instants = [T1, T2, T3];
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 1, max: 2 }), async (i, j) => {
        const [from, to] = [instants[Math.min(i, j - 1)] as string, instants[j] as string];
        const r = await changes(dir, from, to, `g${n++}`);
        expect(linesOfKinds(r.rows)).toEqual(
          expectedFromCsvs(bases.get(from) as Bases, bases.get(to) as Bases),
        );
      }),
      { numRuns: 3 },
    );
  }

  it('known changes between two syncs are exactly those lines, worst first, with evidence at both ends; the generated check over pairs of instants; byte-identical again; before the history refused', async () => {
    const { dir } = workdir(sim().url, await target());
    const t = sim().tables;
    const open = sim()
      .truth()
      .Invoice.filter((i) => Number(i.balance) > 20 && !i.dropInvoice && String(i.date) <= D)
      .map((i) => String(i.id));
    expect(open.length).toBeGreaterThanOrEqual(5);
    const [A, B, P, Q, C] = open.slice(-5) as [string, string, string, string, string];
    // Due 60 and 90 days before the first sync's day: one more day past due at the second.
    t.Invoice.update(A, { date: '2026-03-17', dateDue: '2026-04-16' });
    t.Invoice.update(B, { date: '2026-02-15', dateDue: '2026-03-17' });
    await ohs(SYNC1, ['sync'], dir);
    const before = await basesAt(dir, T1, 'b1');

    const { F, R, N, S, O, X } = await changeUpstream(dir, before, { A, P, Q, C });
    await ohs(SYNC2, ['sync', '--full'], dir);
    const after = await basesAt(dir, T2, 'b2');

    const got = await changes(dir, T1, T2, 'c12', 'csv,xlsx,html');
    const lines = got.rows;
    // The page: the headline first, the chart of the lines per kind.
    const page = readFileSync(got.file.replace(/\.csv$/, '.html'), 'utf8');
    expect(page).toContain('since 2026-06-15T23:30:00.000Z');
    expect(page).toContain('id="chart-changes"');
    const verdictFile = JSON.parse(readFileSync(got.file.replace(/\.csv$/, '.summary.json'), 'utf8'));
    expect(verdictFile.headline).toMatch(/^since 2026-06-15 23:30:00 UTC: .*employer.* fell behind/);
    const find = (kind: string, subject: string) =>
      lines.filter((r) => r.kind === kind && plain(r.subject) === subject);
    // The known changes, each once.
    expect(find('INVOICE_OVER_60', A)).toHaveLength(1);
    expect(find('INVOICE_OVER_90', B)).toHaveLength(1);
    expect(find('INVOICE_PAID_TOOL', P)).toHaveLength(1);
    expect(find('INVOICE_PAID_ELSEWHERE', Q)).toHaveLength(1);
    expect(find('INVOICE_CANCELLED', C)).toHaveLength(1);
    expect(find('INVOICE_NEW', N)).toHaveLength(1);
    expect(find('ORDER_COMPLETED', O)).toHaveLength(1);
    expect(find('ORDER_GONE', X)).toHaveLength(1);
    // A new order already stuck: one line (new, stuck), not also among the new orders.
    expect(
      lines.filter((r) => r.kind === 'ORDERS_NEW' && (r.evidenceAfter ?? '').includes(String(S))),
    ).toHaveLength(0);
    const stuck = lines.filter((r) => r.subject === String(S) && r.area === 'orders');
    expect(stuck.map((r) => r.kind)).toEqual([expect.stringMatching(/^ORDER_(STUCK|WARN)$/)]);
    expect(stuck[0]?.before).toBe('new');
    expect(stuck[0]?.after).toMatch(/^Ordered, (STUCK|WARN)$/);
    const fell = lines.find(
      (r) => r.kind === 'COMPLIANCE_STATUS' && r.orgId === F?.orgId && r.subject === 'drug',
    );
    expect(fell?.severity).toMatch(/^(action|worse)$/);
    expect(fell?.after).toMatch(/^(AT_RISK|BEHIND|NOT_MET)/);
    const rose = lines.find(
      (r) => r.kind === 'COMPLIANCE_STATUS' && r.orgId === R?.orgId && r.subject === 'drug',
    );
    expect(rose?.severity).toBe('better');
    const deleted = lines.find((r) => r.kind === 'RECORDS_DELETED' && r.subject === 'orderitem');
    expect(deleted?.evidenceAfter).toContain(X);
    // The payment applied here is one line, its invoice's (paid by this tool), never also a write-back.
    expect(lines.filter((r) => r.kind === 'WRITEBACK_APPLIED' && r.subject === 'payment')).toHaveLength(0);
    // Nothing else of the roll-forward's kinds: exactly these payments and the cancellation.
    const movementKinds = lines.filter((r) =>
      /^INVOICE_(PAID|CANCELLED|RESTORED|REMOVED)/.test(r.kind ?? ''),
    );
    expect(movementKinds.map((r) => `${r.kind} ${plain(r.subject)}`).sort()).toEqual(
      [`INVOICE_CANCELLED ${C}`, `INVOICE_PAID_ELSEWHERE ${Q}`, `INVOICE_PAID_TOOL ${P}`].sort(),
    );
    // The lines read from the base reports' detail are exactly the differences of their CSVs.
    expect(linesOfKinds(lines)).toEqual(expectedFromCsvs(before, after));
    // Worst first.
    const order = ['action', 'worse', 'tool', 'changed', 'new', 'better'];
    const ranks = lines.map((r) => order.indexOf(r.severity ?? ''));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    // Action needed exactly when a line is a change for the worse its base report calls so.
    const verdict = lines.some((r) => r.severity === 'action') ? 'Action needed' : 'Needs attention';
    expect(got.stderr).toMatch(new RegExp(`^changes: \\d+ detail rows, 0 warnings: ${verdict}`, 'm'));

    await expectEvidence(dir, lines, before, after);

    // Asked again later: the same bytes; `--since 1h` back from T2 is T1: the same report.
    const again = await changes(dir, T1, T2, 'c12b');
    expect(readFileSync(again.file)).toEqual(readFileSync(got.file));
    const hour = await changes(dir, '1h', T2, 'c12h');
    expect(readFileSync(hour.file)).toEqual(readFileSync(got.file));

    // A period before the history: refused, nothing written.
    const early = await ohsAt(
      T3,
      ['report', 'changes', '--since', `${D}T12:00:00Z`, '--as-of-time', T2, '--out', 'early'],
      { cwd: dir, env },
    );
    expect(early.code).toBe(2);
    expect(early.stderr).toMatch(/AS_OF_BEFORE_HISTORY/);

    await generatedCheck(dir, before, after);
  }, 300_000);
});
