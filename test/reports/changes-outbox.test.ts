import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeEngines, withTargets } from '../helpers/engines.js';
import { TEST_ANCHOR, WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { workdir, writeCsv } from '../helpers/writeback.js';
import { type CsvRow, fileOf, ohsAt, readCsv } from './changes-helpers.js';

/**
 * The outbox in what changed, up to the period's exact end (clocks set by libfaketime): a payment
 * held by the apply in the period and abandoned after its end is still held at the end, so the
 * report of that period says so, and is the same bytes asked before and after the abandonment; a
 * period ending before the hold has no such line.
 */
const D = TEST_ANCHOR;
const SYNC1 = `${D}T20:00:00Z`;
const T1 = `${D}T20:30:00.000Z`;
const PLAN = `${D}T20:35:00Z`;
const HOLD = `${D}T20:40:00Z`;
const T2 = `${D}T21:00:00.000Z`;
const ABANDON = `${D}T21:10:00Z`;
const LATER = `${D}T21:30:00Z`;
const env = { OHS_TOKEN: WRITE_TOKEN, OHS_DB: '', OHS_LOG_LEVEL: '' };

describeEngines('%s: the outbox in what changed', {}, (engine) => {
  const sim = withSim({ scale: 0.02 });
  const target = withTargets(engine);

  async function ohs(args: string[], dir: string, at: string, code = 0) {
    const r = await ohsAt(at, args, { cwd: dir, env });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(code);
    return r;
  }

  async function changes(dir: string, to: string, out: string): Promise<{ rows: CsvRow[]; bytes: Buffer }> {
    await ohs(
      ['report', 'changes', '--since', T1, '--as-of-time', to, '--format', 'csv', '--out', out],
      dir,
      LATER,
    );
    const file = fileOf(join(dir, out), 'changes-', '.csv');
    return { rows: readCsv(file), bytes: readFileSync(file) };
  }

  it('a payment held in the period and abandoned after its end: held at the end, the same bytes before and after', async () => {
    const { dir } = workdir(sim().url, await target());
    const open = sim()
      .truth()
      .Invoice.filter((i) => Number(i.balance) > 20 && !i.dropInvoice && String(i.date) <= D)
      .map((i) => String(i.id));
    const P = open.at(-1) as string;
    await ohs(['sync'], dir, SYNC1);
    await ohs(
      ['plan', writeCsv(join(dir, 'pay.csv'), ['InvoiceId', 'amountToPay'], [[P, 10]]), '--op', 'payment'],
      dir,
      PLAN,
    );
    // Paid elsewhere before the apply: the apply holds the payment (exit 5, APPLY_HELD).
    sim().tables.Invoice.update(P, { balance: 0 });
    const held = await ohs(['apply'], dir, HOLD, 5);
    expect(held.stderr).toMatch(/APPLY_HELD: 1 held/);

    const before = await changes(dir, T2, 'c1');
    const line = before.rows.filter((r) => r.kind === 'WRITEBACK_HELD');
    expect(line.map((r) => [r.subject, r.count])).toEqual([['payment', '1']]);
    const id = /outbox · id: (\d+)/.exec(line[0]?.evidenceAfter ?? '')?.[1];
    expect(id).toBeDefined();
    // Nothing of it was paid, here or by this tool.
    expect(
      before.rows.filter((r) => r.kind === 'INVOICE_PAID_TOOL' || r.kind === 'WRITEBACK_APPLIED'),
    ).toEqual([]);

    // After the period's end the item is abandoned: the period still ends with it held.
    await ohs(['outbox', 'resolve', String(id), '--abandon'], dir, ABANDON);
    const after = await changes(dir, T2, 'c2');
    expect(after.bytes.equals(before.bytes)).toBe(true);

    // A period ending before the hold has none; one ending after the abandonment neither (it is
    // no longer held at its end).
    expect(
      (await changes(dir, `${D}T20:39:00.000Z`, 'c3')).rows.filter((r) => r.kind === 'WRITEBACK_HELD'),
    ).toEqual([]);
    expect(
      (await changes(dir, `${D}T21:20:00.000Z`, 'c4')).rows.filter((r) => r.kind === 'WRITEBACK_HELD'),
    ).toEqual([]);
  }, 300_000);
});
