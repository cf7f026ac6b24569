import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/mirror/index.js';
import { reportNamed } from '../../src/reports/index.js';
import { engines } from '../helpers/engines.js';
import { params, runReport, tempMirrors, upsert } from './fixture.js';

/**
 * The A/R roll-forward's rules on a mirror written here: a late fee landing between the last
 * sync and a payment `ohs apply` sent (its read before sending and the service's answer are
 * versions of the invoice, as apply records them), an invoice first seen although dated before
 * the period, a new one, a credit balance; the period's ends (the closing at the instant asked,
 * `--from` alone, both ends in the file name).
 */
const rollforward = reportNamed('ar-rollforward');
const unpaid = reportNamed('unpaid-invoices');

const SYNC = '2026-11-02T10:00:00.000Z';
const READ = '2026-11-05T09:00:00.000Z';
const ANSWER = '2026-11-05T09:00:01.000Z';
const NEXT_SYNC = '2026-11-06T02:00:00.000Z';

const invoice = (id: string, balance: number, more: Record<string, unknown> = {}) => ({
  id,
  OrgId: 1001,
  c_org: 'Acme Haulage',
  date: '2026-10-15',
  dateDue: '2026-11-14',
  balance,
  lateFee: 0,
  dropInvoice: null,
  month: 10,
  year: 2026,
  ...more,
});

async function syncRun(db: Kysely<Database>, at: string, id: number): Promise<void> {
  const ended = new Date(Date.parse(at) + 60_000).toISOString();
  await db
    .insertInto('sync_run')
    .values({
      kind: 'sync',
      started_at: at,
      ended_at: ended,
      mode: 'full',
      streams: '["invoice"]',
      outcome: 'ok',
      pid: 1,
      requests: 1,
      retries: 0,
      host: null,
    })
    .execute();
  await db
    .insertInto('sync_stream_run')
    .values({
      run_id: id,
      stream: 'invoice',
      mode: 'full',
      started_at: at,
      ended_at: ended,
      outcome: 'ok',
      pages: 1,
      inserted: 0,
      updated: 0,
      unchanged: 0,
      deleted: 0,
      requests: 1,
      retries: 0,
      error: null,
      records: 1,
    })
    .execute();
}

/** A payment `ohs apply` settled: the outbox item, state applied, with the balance read before sending. */
async function appliedPayment(db: Kysely<Database>, invoiceId: string, amount: number, before: number) {
  await db
    .insertInto('outbox')
    .values({
      idempotency_key: `k${invoiceId}`,
      content_key: `c${invoiceId}`,
      op: 'payment',
      target_id: null,
      body: JSON.stringify({ InvoiceId: invoiceId, amountToPay: amount }),
      summary: 'payment',
      flags: '[]',
      state: 'applied',
      attempts: 1,
      request: null,
      response: null,
      error: null,
      balance_before: before,
      verify: null,
      resolution: null,
      result_id: '77',
      confirmed_at: null,
      file: 'pay.csv',
      row: 2,
      created_at: READ,
      updated_at: ANSWER,
      claimed_by: null,
      claimed_at: null,
      unknown_at: null,
    } as never)
    .execute();
}

describe.each(engines)('%s: ar-rollforward rules', (engine) => {
  const mirror = tempMirrors(engine);

  /** The mirror of the example: synced, a fee then a payment applied here, synced again. */
  async function example() {
    const m = await mirror();
    await upsert(m, 'Invoice', [invoice('9001', 1973.54), invoice('9002', -40)], SYNC);
    await syncRun(m.db, SYNC, 1);
    // apply's read just before sending: a 25.00 late fee landed since the sync.
    await upsert(m, 'Invoice', [invoice('9001', 1998.54, { lateFee: 25 })], READ);
    // The service's answer: the 500.00 payment.
    await upsert(m, 'Invoice', [invoice('9001', 1498.54, { lateFee: 25 })], ANSWER);
    await appliedPayment(m.db, '9001', 500, 1998.54);
    // The next sync: the same invoice, a new one, and one dated in September seen for the first time.
    await upsert(
      m,
      'Invoice',
      [
        invoice('9001', 1498.54, { lateFee: 25 }),
        invoice('9003', 100, { date: '2026-11-05', dateDue: '2026-12-05', month: 11 }),
        invoice('9004', 60, { date: '2026-09-01', dateDue: '2026-10-01', month: 9 }),
      ],
      NEXT_SYNC,
    );
    await syncRun(m.db, NEXT_SYNC, 2);
    return m;
  }

  it('a late fee before a payment applied here: a 25.00 late fee and the 500.00 payment whole (matched); found apart from new; credits apart', async () => {
    const m = await example();
    const ran = await runReport(
      rollforward,
      m,
      params('2026-11-07', { from: '2026-11-03', to: '2026-11-07' }),
    );
    expect(ran.result.fileName).toBe('2026-11-03-2026-11-07');
    const row = (id: string) => ran.detail.find((r) => r.invoiceId === id) ?? {};
    expect(row('9001')).toMatchObject({
      opening: 197354,
      lateFees: 2500,
      increases: 0,
      decreases: 50000,
      decreasesApplied: 50000,
      decreasesElsewhere: 0,
      closing: 149854,
    });
    expect(row('9003')).toMatchObject({ new: 10000, found: 0 });
    expect(row('9004')).toMatchObject({ new: 0, found: 6000 });
    expect(row('9002')).toMatchObject({ opening: -4000, closing: -4000 });
    const lines = await ran.summary('Roll-forward');
    const line = (label: string) => lines.find((r) => String(r.line).trim() === label);
    expect(line('Opening A/R')?.amount).toBe(193354);
    expect(line('+ Late fees')?.amount).toBe(2500);
    expect(line('+ Other increases')?.amount).toBe(0);
    expect(line('+ New invoices')?.amount).toBe(10000);
    expect(line('+ Found, dated earlier')?.amount).toBe(6000);
    expect(line('of which payments applied by this tool')?.amount).toBe(50000);
    expect(line('Closing A/R')?.amount).toBe(161854);
    // Credit balances apart from what is owed, at both ends.
    const parts = lines
      .filter((r) => String(r.line).trim() === 'of which credit balances')
      .map((r) => r.amount);
    expect(parts).toEqual([-4000, -4000]);
    const owed = lines.filter((r) => String(r.line).trim() === 'of which owed').map((r) => r.amount);
    expect(owed).toEqual([197354, 165854]);
    // Every check zero; the sentence on write-offs.
    const checks = lines.filter((r) => String(r.line).startsWith('Check:'));
    expect(checks.length).toBe(5);
    for (const c of checks) expect(c.check, String(c.line)).toBe(0);
    expect(line('Write-offs')?.rule).toMatch(/no write-off/);
    // The payment: the balance read before sending, less the amount, is what the next sync saw.
    const paid = await ran.summary('Payments applied');
    expect(paid).toMatchObject([
      { invoiceId: '9001', amount: 50000, balanceChange: 50000, result: 'matched' },
    ]);
    expect(ran.warnings.join('\n')).toContain('1 invoice first seen in the period although dated before it');
  });

  it('the closing at --as-of-time on a young mirror is the ageing at that instant; --from alone runs to now; both ends name the files', async () => {
    const m = await example();
    const at = '2026-11-05T12:00:00.000Z';
    const ran = await runReport(
      rollforward,
      m,
      params('2026-11-05', {}, { asOfTimestamp: at, mirrorAsOf: at }),
    );
    const lines = await ran.summary('Roll-forward');
    // The default month starts before the history: from the history's start to the instant asked.
    expect(String(lines[0]?.rule)).toContain(`ends ${at}`);
    expect(ran.result.fileName).toBe('20261102T100100Z-20261105T120000Z');
    // The page's header names the period: ends that are no day's start as UTC instants.
    expect(ran.result.covers).toBe('from 2026-11-02T10:01:00Z to 2026-11-05T12:00:00Z');
    const closing = lines.find((r) => r.line === 'Closing A/R')?.amount;
    const ageing = await runReport(
      unpaid,
      m,
      params('2026-11-05', {}, { asOfTimestamp: at, mirrorAsOf: at }),
    );
    const owed = ageing.detail.filter((r) => r.status === 'open').reduce((s, r) => s + Number(r.totalDue), 0);
    expect(closing).toBe(owed);
    expect(closing).toBe(149854 - 4000);

    // --from alone: to the run's instant (now, up to the whole second), both ends in the name.
    const before = Math.floor(Date.now() / 1000) * 1000;
    const open = await runReport(
      rollforward,
      m,
      params(new Date().toISOString().slice(0, 10), { from: '2026-11-03' }),
    );
    const end = String(open.result.fileName).split('-').at(-1) ?? '';
    expect(open.result.fileName?.startsWith('2026-11-03-')).toBe(true);
    // A day's start as that day at 00:00 in the zone, named.
    expect(open.result.covers).toMatch(
      /^from 2026-11-03 00:00 to \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z \([\w/]+\)$/,
    );
    const ms = Date.parse(
      end.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
    );
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) * 1000);
    const openLines = await open.summary('Roll-forward');
    expect(openLines.find((r) => r.line === 'Closing A/R')?.amount).toBe(149854 - 4000 + 10000 + 6000);
  });
});
