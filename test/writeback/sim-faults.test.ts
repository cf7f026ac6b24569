import { describe, expect, it } from 'vitest';
import { startOhs } from '../helpers/cli.js';
import { call, withSim } from '../helpers/sim.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The sandbox's write faults, switched through the test hooks and the `ohs sim` flags. */
describe('sandbox late and slow writes', { timeout: 300_000 }, () => {
  const sim = withSim({ scale: 0.05 });
  const open = () =>
    sim()
      .truth()
      .Invoice.find((i) => Number(i.balance) > 10 && !i.dropInvoice);
  const balance = (id: unknown) => Number(sim().tables.Invoice.get(String(id))?.balance);

  it('late write: 504 at once, carried out later; only for the operations switched on', async () => {
    const inv = open();
    const was = balance(inv?.id);
    const hook = await call(sim(), 'POST', '/__sim/config', {
      lateWriteRate: 1,
      lateWriteOps: ['createPayment'],
      lateWriteMinMs: 1000,
      lateWriteMaxMs: 1200,
    });
    expect(hook.status).toBe(200);
    const r = await call(sim(), 'POST', '/vLatest/action/core/payment', {
      InvoiceId: inv?.id,
      amountToPay: 1.25,
    });
    expect(r.status).toBe(504);
    expect(balance(inv?.id)).toBe(was);
    // Not a payment: not late.
    const org = await call(sim(), 'POST', '/v2/action/core/org', { name: 'On Time Ltd', zip: '10001' });
    expect(org.status).toBe(200);
    // Until the late write lands (1.0-1.2 s after it was asked), not a fixed wait longer than that.
    for (const until = Date.now() + 30_000; balance(inv?.id) === was && Date.now() < until; ) await sleep(20);
    expect(balance(inv?.id)).toBeCloseTo(was - 1.25, 2);
    expect(sim().stats.lateWrites).toBe(1);
    sim().configure({ lateWriteRate: 0 });
  });

  it('slow write: carried out at once, answered after the client gave up', async () => {
    const inv = open();
    const was = balance(inv?.id);
    sim().configure({ slowWriteRate: 1, slowWriteOps: ['createPayment'], slowWriteMs: 3000 });
    const gaveUp = await fetch(`${sim().url}/vLatest/action/core/payment`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-write-token', 'content-type': 'application/json' },
      body: JSON.stringify({ InvoiceId: inv?.id, amountToPay: 2 }),
      signal: AbortSignal.timeout(500),
    }).catch((err: Error) => err.name);
    sim().configure({ slowWriteRate: 0 });
    expect(gaveUp).toBe('TimeoutError');
    expect(balance(inv?.id)).toBeCloseTo(was - 2, 2);
    expect(sim().stats.slowWrites).toBe(1);
  });

  it('ohs sim switches them per operation from its flags', async () => {
    const { child, firstLine } = await startOhs([
      'sim',
      '--port',
      '0',
      '--scale',
      '0.01',
      '--hooks',
      '--late-write-rate',
      '0.5',
      '--late-write-ops',
      'createPerson,updatePerson',
      '--slow-write-rate',
      '0.25',
      '--slow-write-ops',
      'createOrg',
      '--slow-write-ms',
      '40000',
    ]);
    try {
      const r = await fetch(`${firstLine}/__sim/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(await r.json()).toMatchObject({
        lateWriteRate: 0.5,
        lateWriteOps: ['createPerson', 'updatePerson'],
        lateWriteMinMs: 100,
        lateWriteMaxMs: 800,
        slowWriteRate: 0.25,
        slowWriteOps: ['createOrg'],
        slowWriteMs: 40000,
      });
    } finally {
      child.kill('SIGTERM');
    }
  });
});
