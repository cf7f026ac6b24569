import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, probeService } from '../../src/api/index.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/log.js';
import { type RunningSim, type SimOptionsInput, startSim } from '../../src/sim/index.js';
import { runOhs } from '../helpers/cli.js';
import { clientFor } from '../helpers/client.js';
import { READ_TOKEN, TEST_ANCHOR, WRITE_TOKEN, withSim } from '../helpers/sim.js';

describe('metrics and request logs', () => {
  const sim = withSim({ scale: 0.05, faultRate: 0.2, faultKinds: ['503'] });

  it('counts requests, retries, bytes and latency; logs method, path, status, ms and never the token or body', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        cb();
      },
    });
    const logger = createLogger({ level: 'debug', pretty: false, destination });
    const client = clientFor(sim(), { logger });
    try {
      for await (const _ of client.scan('OrderItem', { pageSize: 200 })) {
        // paging only
      }
      const invoice = sim()
        .truth()
        .Invoice.find((i) => Number(i.balance) > 1);
      sim().configure({ faultRate: 0 });
      await client.createPayment({ InvoiceId: String(invoice?.id), amountToPay: 0.5, PersonId: 70001 });
      const m = client.metrics();
      expect(m.requests).toBe(sim().stats.requests);
      expect(m.retries.server_error).toBe(sim().stats.faults['503']);
      expect(m.responses['200']).toBe(sim().stats.byStatus['200']);
      expect(m.bytesReceived).toBeGreaterThan(10_000);
      expect(m.bytesSent).toBeGreaterThan(0);
      expect(m.latencyMs.p50).toBeGreaterThanOrEqual(0);
      expect(m.latencyMs.max).toBeGreaterThanOrEqual(m.latencyMs.p99);
      const http = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'http');
      expect(http).toHaveLength(m.requests);
      for (const entry of http) {
        expect(entry).toMatchObject({
          method: expect.any(String),
          path: expect.any(String),
          ms: expect.any(Number),
        });
        expect(entry.status).toBeDefined();
      }
      const all = lines.join('\n');
      expect(all).not.toContain(WRITE_TOKEN);
      expect(all).not.toContain('amountToPay');
      expect(all).not.toContain('c_personNameFirst');
    } finally {
      await client.close();
    }
  });
});

const cases: { name: string; options: SimOptionsInput; expected: Record<string, unknown> }[] = [
  {
    name: 'defaults',
    options: {},
    expected: {
      envelope: 'array',
      envelopeKey: undefined,
      totalKey: undefined,
      pageCap: 250,
      defaultOrder: 'unordered',
      defaultOmits: [],
      fieldsParam: 'fields',
      stringCase: 'insensitive',
      listContains: 'any-of',
    },
  },
  {
    name: 'object envelope, other keys, no cap, id order, lean, select, case-sensitive, listContains whole',
    options: {
      envelope: 'object',
      envelopeKey: 'items',
      totalKey: 'totalCount',
      pageCap: 0,
      defaultOrder: 'id',
      lean: true,
      fieldsParam: 'select',
      stringCase: 'sensitive',
      listContains: 'whole',
    },
    expected: {
      envelope: 'object',
      envelopeKey: 'items',
      totalKey: 'totalCount',
      pageCap: 0,
      defaultOrder: 'id-asc',
      fieldsParam: 'select',
      stringCase: 'sensitive',
      listContains: 'other',
    },
  },
  {
    name: 'object envelope with a cap of 100 and $select',
    options: { envelope: 'object', pageCap: 100, fieldsParam: '$select' },
    expected: {
      envelope: 'object',
      envelopeKey: 'data',
      totalKey: 'total',
      pageCap: 100,
      fieldsParam: '$select',
    },
  },
];

describe.each(cases)('ohs probe against the sandbox: $name', ({ options, expected }) => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({
      anchorDate: TEST_ANCHOR,
      token: WRITE_TOKEN,
      readonlyToken: READ_TOKEN,
      scale: 0.1,
      ...options,
    });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('finds the reading of each gap, with read-only requests', async () => {
    const client = clientFor(sim, { token: READ_TOKEN });
    try {
      const found = await probeService(client);
      expect(found).toMatchObject(expected);
      if (options.lean === true) {
        expect(found.defaultOmits).toEqual(
          expect.arrayContaining(['c_org', 'c_productName', 'c_currentStatusCodeName']),
        );
        expect(found.defaultOmits.every((f) => f.startsWith('c_'))).toBe(true);
      }
      expect(sim.stats.writesApplied).toEqual({});
    } finally {
      await client.close();
    }
  });
});

describe('ohs probe --write, then the client uses what was found', () => {
  const sim = withSim({
    scale: 0.05,
    fieldsParam: 'select',
    envelope: 'object',
    envelopeKey: 'results',
    totalKey: 'count',
    pageCap: 40,
  });

  it('saves the findings to config/local.json and a configured client follows them', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'ohs-probe-'));
    const env = { OHS_TOKEN: READ_TOKEN, OHS_BASE_URL: sim().url };
    const before = createClient(loadConfig({}, env, cwd));
    const invoice = sim().truth().Invoice[0];
    try {
      // Not probed yet: `fields` is not this service's parameter, so the whole record comes back,
      // with a field an invoice does not declare (`amount`): no Invoice record, refused.
      await expect(before.getInvoice(String(invoice?.id), { fields: ['balance'] })).rejects.toThrow(
        /a record carrying amount, a field its resource does not declare: no Invoice record/,
      );
    } finally {
      await before.close();
    }

    const r = await runOhs(['probe', '--write'], { cwd, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("object, records under 'results', total under 'count'");
    expect(r.stdout).toContain('40 (larger pageSize is cut silently)');
    const saved = JSON.parse(readFileSync(join(cwd, 'config', 'local.json'), 'utf8')) as {
      api: Record<string, unknown>;
      service: Record<string, unknown>;
    };
    expect(saved.api).toMatchObject({
      fieldsParam: 'select',
      pageCap: 40,
      envelopeKey: 'results',
      totalKey: 'count',
    });
    expect(saved.service).toMatchObject({ envelope: 'object', baseUrl: sim().url });

    const after = createClient(loadConfig({}, env, cwd));
    try {
      expect(await after.getInvoice(String(invoice?.id), { fields: ['balance'] })).toEqual({
        id: invoice?.id,
        balance: invoice?.balance,
      });
      sim().resetStats();
      let pages = 0;
      for await (const page of after.scan('Tenant')) {
        expect(page.records.length).toBeLessThanOrEqual(40);
        pages++;
      }
      // pageSize is asked at the cap, and the total ends the scan: no wasted requests.
      expect(sim().stats.byOperation.queryTenant).toBe(pages);
    } finally {
      await after.close();
    }
  });

  it('a bad token stops ohs probe with one UNAUTHORIZED line and exit 3', async () => {
    const r = await runOhs(['probe'], { env: { OHS_TOKEN: 'tok-3f9a-not-valid', OHS_BASE_URL: sim().url } });
    expect(r.code).toBe(3);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ohs: UNAUTHORIZED: the service refused the token \(401\)/);
    expect(r.stderr).not.toContain('tok-3f9a-not-valid');
  });
});
