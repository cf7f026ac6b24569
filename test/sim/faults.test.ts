import { describe, expect, it } from 'vitest';
import type { RunningSim, SimRecord } from '../../src/sim/index.js';
import { call, WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { asObj, errorOf, num, pathOf, rawRequest, sleep } from '../helpers/sim-data.js';

const auth = { authorization: `Bearer ${WRITE_TOKEN}` };
const jsonHeaders = { ...auth, 'content-type': 'application/json' };

/** An invoice with a balance to pay from. */
function unpaid(sim: RunningSim): SimRecord {
  const inv = sim.truth().Invoice.find((r) => num(r.balance) > 20);
  if (inv === undefined) throw new Error('no unpaid invoice');
  return inv;
}

/** A payment sent with fetch; resolves to the Response or to the error fetch raised. */
async function pay(sim: RunningSim, invoiceId: string | number, amount: number): Promise<Response | Error> {
  try {
    return await fetch(`${sim.url}${pathOf('createPayment')}`, {
      method: 'POST',
      headers: jsonHeaders,
      body: JSON.stringify({ InvoiceId: invoiceId, amountToPay: amount, PersonId: 70001 }),
    });
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

const cents = (n: number) => Math.round(n * 100) / 100;

describe('fault 503', () => {
  const sim = withSim({ scale: 0.1, faultRate: 1, faultKinds: ['503'] });
  it('answers 503 with an error body; the write is not applied', async () => {
    const s = sim();
    const inv = unpaid(s);
    const res = await pay(s, inv.id, 5);
    expect(res).toBeInstanceOf(Response);
    if (!(res instanceof Response)) return;
    expect(res.status).toBe(503);
    expect(errorOf(await res.json())).toEqual({
      status: 503,
      code: 'UNAVAILABLE',
      message: 'service unavailable (injected)',
    });
    const read = await call(s, 'GET', pathOf('getInvoice', inv.id));
    expect(read.status).toBe(503);
    expect(s.tables.Invoice.get(inv.id)?.balance).toBe(inv.balance);
    expect(s.tables.Payment.size).toBe(0);
    expect(s.stats.writesApplied).toEqual({});
    expect(s.stats.faults['503']).toBe(2);
    expect(s.stats.byStatus['503']).toBe(2);
  });
});

describe('fault 500', () => {
  const sim = withSim({ scale: 0.1, faultRate: 1, faultKinds: ['500'] });
  it('answers 500 with an error body; the write is not applied', async () => {
    const s = sim();
    const person = s.truth().Person[0];
    const res = await call(s, 'PATCH', pathOf('updatePerson', person?.id), { city: 'Memphis' });
    expect(res.status).toBe(500);
    expect(errorOf(res.body)).toMatchObject({ status: 500, code: 'INTERNAL' });
    expect(s.tables.Person.get(Number(person?.id))).toEqual(person);
    expect(s.stats.writesApplied).toEqual({});
    expect(s.stats.faults['500']).toBe(1);
  });
});

describe('fault drop', () => {
  const sim = withSim({ scale: 0.1, faultRate: 1, faultKinds: ['drop'] });
  it('closes the connection without an answer; the write is not applied', async () => {
    const s = sim();
    const inv = unpaid(s);
    const res = await pay(s, inv.id, 5);
    expect(res).toBeInstanceOf(TypeError);
    expect(String((res as Error).cause)).toMatch(/other side closed|socket/i);
    await expect(fetch(`${s.url}${pathOf('getInvoice', inv.id)}`, { headers: auth })).rejects.toThrow(
      TypeError,
    );
    expect(s.tables.Invoice.get(inv.id)?.balance).toBe(inv.balance);
    expect(s.tables.Payment.size).toBe(0);
    expect(s.stats.writesApplied).toEqual({});
    expect(s.stats.faults.drop).toBe(2);
    expect(s.stats.byStatus.drop).toBe(2);
  });
});

describe('fault truncate', () => {
  const sim = withSim({ scale: 0.1, faultRate: 1, faultKinds: ['truncate'] });
  it('sends the status and headers, then half the body, then closes', async () => {
    const s = sim();
    const staff = s.truth().Staff[0];
    const full = Buffer.from(JSON.stringify(staff));
    const raw = await rawRequest(`${s.url}${pathOf('getStaff', staff?.id)}`, { headers: auth });
    expect(raw.status).toBe(200);
    expect(raw.headers['content-length']).toBe(String(full.length));
    expect(raw.complete).toBe(false);
    expect(raw.body.length).toBe(Math.floor(full.length / 2));
    expect(raw.body.equals(full.subarray(0, raw.body.length))).toBe(true);
    expect(() => JSON.parse(raw.body.toString('utf8'))).toThrow(SyntaxError);
    // fetch sees a 200 whose body cannot be read.
    const res = await fetch(`${s.url}${pathOf('getStaff', staff?.id)}`, { headers: auth });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    expect(s.stats.faults.truncate).toBe(2);
  });

  it('a truncated write has been applied', async () => {
    const s = sim();
    const inv = unpaid(s);
    const res = await pay(s, inv.id, 4.5);
    if (res instanceof Response) await expect(res.text()).rejects.toThrow();
    else expect(res).toBeInstanceOf(TypeError);
    expect(s.tables.Invoice.get(inv.id)?.balance).toBe(cents(num(inv.balance) - 4.5));
    expect(s.stats.writesApplied.createPayment).toBe(1);
  });
});

describe('fault lostReply', () => {
  const sim = withSim({ scale: 0.1, faultRate: 1, faultKinds: ['lostReply'] });
  it('applies the write, then drops the connection; a resend writes twice', async () => {
    const s = sim();
    const inv = unpaid(s);
    const first = await pay(s, inv.id, 3);
    expect(first).toBeInstanceOf(TypeError);
    expect(s.stats.writesApplied.createPayment).toBe(1);
    expect(s.tables.Invoice.get(inv.id)?.balance).toBe(cents(num(inv.balance) - 3));
    expect(s.truth().Payment).toEqual([
      { id: 1, InvoiceId: inv.id, amountToPay: 3, PersonId: 70001, balance: cents(num(inv.balance) - 3) },
    ]);
    const again = await pay(s, inv.id, 3);
    expect(again).toBeInstanceOf(TypeError);
    expect(s.stats.writesApplied.createPayment).toBe(2);
    expect(s.tables.Invoice.get(inv.id)?.balance).toBe(cents(num(inv.balance) - 6));
    expect(s.stats.faults.lostReply).toBe(2);
  });

  it('a created person exists though its id never reached the client', async () => {
    const s = sim();
    const before = s.tables.Person.size;
    const org = s.truth().Org[0];
    await expect(
      fetch(`${s.url}${pathOf('createPerson')}`, {
        method: 'POST',
        headers: jsonHeaders,
        body: JSON.stringify({ nameFirst: 'Søren', nameLast: 'Núñez', OrgId: org?.id }),
      }),
    ).rejects.toThrow(TypeError);
    expect(s.tables.Person.size).toBe(before + 1);
    const created = s.tables.Person.all().at(-1);
    expect(created).toMatchObject({ nameFirst: 'Søren', nameLast: 'Núñez', OrgId: org?.id });
    expect(s.stats.writesApplied.createPerson).toBe(1);
  });
});

describe('fault hang', () => {
  const sim = withSim({ scale: 0.1, faultRate: 1, faultKinds: ['hang'], hangMs: 150 });
  it('holds the request for hangMs, then drops it; the write is not applied', async () => {
    const s = sim();
    const inv = unpaid(s);
    const started = Date.now();
    const res = await pay(s, inv.id, 5);
    const took = Date.now() - started;
    expect(res).toBeInstanceOf(TypeError);
    expect(took).toBeGreaterThanOrEqual(140);
    expect(took).toBeLessThan(3000);
    expect(s.tables.Invoice.get(inv.id)?.balance).toBe(inv.balance);
    expect(s.stats.writesApplied).toEqual({});
    expect(s.stats.faults.hang).toBe(1);
  });
});

describe('the default fault kinds', () => {
  const sim = withSim({ scale: 0.1, faultRate: 1 });
  it('are 503, drop, truncate and lostReply', async () => {
    const s = sim();
    expect(s.options.faultKinds).toEqual(['503', 'drop', 'truncate', 'lostReply']);
    const staff = s.truth().Staff[0];
    for (let i = 0; i < 24; i++) {
      try {
        const res = await fetch(`${s.url}${pathOf('getStaff', staff?.id)}`, { headers: auth });
        await res.text();
      } catch {
        // drop, truncate and lostReply end in a broken connection
      }
    }
    const { faults } = s.stats;
    expect(faults['500'] + faults.hang).toBe(0);
    expect(faults['503'] + faults.drop + faults.truncate + faults.lostReply).toBe(24);
    expect([faults['503'], faults.drop, faults.truncate, faults.lostReply].every((n) => n > 0)).toBe(true);
  });
});

describe('a fault rate below 1', () => {
  const sim = withSim({ scale: 0.1, faultRate: 0.4, faultKinds: ['503', '500'] });
  const twin = withSim({ scale: 0.1, faultRate: 0.4, faultKinds: ['503', '500'] });
  it('fails some requests, answers the others right, the same way for the same seed', async () => {
    const statuses = async (s: RunningSim) => {
      const out: number[] = [];
      const staff = s.truth().Staff;
      for (let i = 0; i < 40; i++) {
        const rec = staff[i];
        const res = await call(s, 'GET', pathOf('getStaff', rec?.id));
        out.push(res.status);
        if (res.status === 200) expect(res.body).toEqual(rec);
        else expect(errorOf(res.body).status).toBe(res.status);
      }
      return out;
    };
    const a = await statuses(sim());
    const ok = a.filter((x) => x === 200).length;
    expect(ok).toBeGreaterThan(10);
    expect(ok).toBeLessThan(40);
    expect(new Set(a)).toEqual(new Set([200, 500, 503]));
    expect(sim().stats.faults['503']).toBe(a.filter((x) => x === 503).length);
    expect(sim().stats.faults['500']).toBe(a.filter((x) => x === 500).length);
    expect(await statuses(twin())).toEqual(a);
  });
});

describe('rate limit', () => {
  const sim = withSim({ scale: 0.1, rateLimit: 2, rateBurst: 3, retryAfter: 7 });
  it('answers 429 with Retry-After over the burst; refills over time; limited writes are not applied', async () => {
    const s = sim();
    const roles = s.truth().Role;
    const got: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call(s, 'POST', pathOf('queryRole'), { sortBy: 'id', sortDirection: 'asc' });
      got.push(res.status);
      expect(res.body).toEqual(roles);
    }
    const inv = unpaid(s);
    const limited = await pay(s, inv.id, 5);
    expect(limited).toBeInstanceOf(Response);
    if (!(limited instanceof Response)) return;
    expect(got).toEqual([200, 200, 200]);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(errorOf(await limited.json())).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(s.tables.Invoice.get(inv.id)?.balance).toBe(inv.balance);
    expect(s.stats.rateLimited).toBe(1);
    expect(s.stats.byStatus['429']).toBe(1);
    // Requests without a valid token are refused before the bucket and take nothing from it.
    expect((await call(s, 'POST', pathOf('queryRole'), {}, null)).status).toBe(401);
    await sleep(600);
    const after = await pay(s, inv.id, 5);
    expect(after).toBeInstanceOf(Response);
    if (!(after instanceof Response)) return;
    expect(after.status).toBe(200);
    expect(asObj(await after.json()).balance).toBe(cents(num(inv.balance) - 5));
    expect(s.tables.Invoice.get(inv.id)?.balance).toBe(cents(num(inv.balance) - 5));
  });
});

describe('latency', () => {
  const sim = withSim({ scale: 0.1, latencyMs: 120 });
  it('delays every service answer by latencyMs; the answer is unchanged', async () => {
    const s = sim();
    const staff = s.truth().Staff[1];
    const started = Date.now();
    const res = await call(s, 'GET', pathOf('getStaff', staff?.id));
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
    expect(res.body).toEqual(staff);
    // Hooks are not delayed: with every service answer an hour away, a hook still answers (were
    // it delayed, it would not answer before the test's timeout).
    expect((await call(s, 'POST', '/__sim/config', { latencyMs: 3_600_000 })).status).toBe(200);
    const hook = await fetch(`${s.url}/__sim/stats`);
    expect(asObj(await hook.json()).requests).toBe(1);
    expect((await call(s, 'POST', '/__sim/config', { latencyMs: 120 })).status).toBe(200);
  });
});
