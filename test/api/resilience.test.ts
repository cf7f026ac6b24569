import { describe, expect, it } from 'vitest';
import { type OhsClient, OutcomeUnknownError } from '../../src/api/index.js';
import type { RunningSim } from '../../src/sim/index.js';
import { clientFor, idsOf } from '../helpers/client.js';
import { withSim } from '../helpers/sim.js';

async function scanIds(
  client: OhsClient,
  resource: 'OrderItem' | 'HsVendor' | 'Tenant' | 'Role',
  after?: number,
  atMost?: number,
) {
  const ids: number[] = [];
  for await (const page of client.scan(resource, {
    ...(after === undefined ? {} : { after }),
    ...(atMost === undefined ? {} : { atMost }),
  })) {
    ids.push(...page.records.map((r) => r.id as number));
  }
  return ids;
}

/** Splits the order items into `n` id ranges and scans them at once. */
async function partitionedScan(sim: RunningSim, client: OhsClient, n: number) {
  const all = sim.tables.OrderItem.all();
  const bounds = Array.from({ length: n + 1 }, (_, i) =>
    i === 0 ? undefined : i === n ? undefined : (all[Math.floor((all.length * i) / n)]?.id as number),
  );
  const parts = await Promise.all(
    Array.from({ length: n }, (_, i) => scanIds(client, 'OrderItem', bounds[i], bounds[i + 1])),
  );
  return parts.flat();
}

describe('rate limit: a 429 storm slows the whole client and the scan completes', () => {
  const sim = withSim({ scale: 0.1, pageCap: 100, rateLimit: 15, rateBurst: 3, retryAfter: 1 });

  it('honours Retry-After, cuts its rate, and returns exactly the right records', async () => {
    const client = clientFor(sim(), { concurrency: 8, requestsPerSecond: 1000 });
    try {
      const started = Date.now();
      const ids = await partitionedScan(sim(), client, 8);
      const elapsed = Date.now() - started;
      expect(ids.sort((a, b) => a - b)).toEqual(idsOf(sim().truth().OrderItem));
      const m = client.metrics();
      expect(m.retries.rate_limited).toBeGreaterThan(0);
      expect(m.retries.rate_limited).toBe(sim().stats.rateLimited);
      expect(m.rateLimitPauses).toBeGreaterThan(0);
      // One controller: the rate is cut (concurrency stays as configured).
      expect(m.rate?.cuts.throttled).toBeGreaterThan(0);
      expect(m.rate?.rate).toBeLessThan(1000);
      expect(client.transport.concurrency).toBe(8);
      // ~38 pages at 15 requests/s cannot finish in under two seconds: the client waited.
      expect(elapsed).toBeGreaterThan(1500);
    } finally {
      await client.close();
    }
  });
});

describe('faults at 20%: every read still returns exactly the right records', () => {
  const sim = withSim({
    scale: 0.1,
    pageCap: 100,
    faultRate: 0.2,
    faultKinds: ['503', '500', 'drop', 'truncate', 'hang'],
    hangMs: 400,
  });

  it('scans, lists and gets through 503, 500, dropped, truncated and hung responses', async () => {
    const client = clientFor(sim(), { timeoutMs: 200, maxRetries: 12 });
    try {
      const truth = sim().truth();
      expect((await partitionedScan(sim(), client, 4)).sort((a, b) => a - b)).toEqual(idsOf(truth.OrderItem));
      expect(await scanIds(client, 'HsVendor')).toEqual(idsOf(truth.HsVendor));
      expect(await scanIds(client, 'Tenant')).toEqual(idsOf(truth.Tenant));
      expect(await scanIds(client, 'Role')).toEqual(idsOf(truth.Role));
      expect((await client.listUser('all')).records).toEqual(truth.User);
      expect((await client.listOrgMonth('all')).records).toEqual(truth.OrgMonth);
      for (const invoice of truth.Invoice.slice(0, 40)) {
        // Read by id: the fields an invoice declares (not the sandbox's undeclared `amount`).
        const { amount: _, ...declared } = invoice;
        expect(await client.getInvoice(invoice.id as string, 'all')).toEqual(declared);
      }
      const m = client.metrics();
      const stats = sim().stats;
      expect(stats.faults['503'] + stats.faults['500']).toBeGreaterThan(0);
      expect(stats.faults.drop + stats.faults.truncate + stats.faults.hang).toBeGreaterThan(0);
      expect(m.retries.server_error).toBe(stats.faults['503'] + stats.faults['500']);
      expect((m.retries.network ?? 0) + (m.retries.truncated ?? 0) + (m.retries.timeout ?? 0)).toBe(
        stats.faults.drop + stats.faults.truncate + stats.faults.hang,
      );
    } finally {
      await client.close();
    }
  });
});

describe('creates are never resent blindly', () => {
  const sim = withSim({ scale: 0.05 });

  it.each([
    ['lostReply', 1],
    ['503', 0],
    ['drop', 0],
    ['truncate', 1],
  ] as const)('a payment hit by %s is OUTCOME_UNKNOWN and sent exactly once', async (kind, applied) => {
    sim().configure({ faultRate: 0 });
    sim().resetStats();
    const invoice = sim()
      .truth()
      .Invoice.find((i) => Number(i.balance) > 50);
    const paymentsBefore = sim().tables.Payment.size;
    sim().configure({ faultRate: 1, faultKinds: [kind] });
    const client = clientFor(sim());
    try {
      const err = await client
        .createPayment({ InvoiceId: String(invoice?.id), amountToPay: 20 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OutcomeUnknownError);
      expect((err as OutcomeUnknownError).code).toBe('OUTCOME_UNKNOWN');
      expect(sim().stats.byOperation.createPayment).toBe(1);
      expect(sim().stats.writesApplied.createPayment ?? 0).toBe(applied);
      expect(sim().tables.Payment.size - paymentsBefore).toBe(applied);
    } finally {
      sim().configure({ faultRate: 0 });
      await client.close();
    }
  });

  it('PATCH and DELETE are retried; a DELETE whose reply was lost is done, not an error', async () => {
    sim().configure({ faultRate: 0 });
    const client = clientFor(sim());
    const persons = sim().truth().Person.slice(10, 30);
    const applicants = sim().truth().Applicant.slice(0, 10);
    sim().configure({ faultRate: 0.5, faultKinds: ['lostReply', '503', 'drop'] });
    try {
      for (const p of persons) await client.deletePerson(p.id as number);
      for (const a of applicants)
        await client.updateApplicant(a.id as number, { priorAddressCity: 'Memphis' });
      sim().configure({ faultRate: 0 });
      for (const p of persons) expect(sim().tables.Person.get(p.id)).toBeUndefined();
      for (const a of applicants) expect(sim().tables.Applicant.get(a.id)?.priorAddressCity).toBe('Memphis');
      expect(client.metrics().retries.network ?? 0).toBeGreaterThan(0);
    } finally {
      sim().configure({ faultRate: 0 });
      await client.close();
    }
  });
});
