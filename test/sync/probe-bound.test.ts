import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OhsClient } from '../../src/api/index.js';
import { openMirror } from '../../src/mirror/index.js';
import { runSync } from '../../src/sync/index.js';
import { clientOptions } from '../helpers/client.js';
import { defaults } from '../helpers/defaults.js';
import { engines, withTargets } from '../helpers/engines.js';
import { one, silentLogger } from '../helpers/mirror.js';

/**
 * A hostile service answering 200 with a made-up record for every staff id, one that passes
 * every record check (its own id, only fields a staff record declares, of their types). Probing
 * upward goes on while it finds records; its reach stops it (src/sync/id-probe.ts probeReach: as
 * far again as the span of ids the stream holds, at most `sync.probeMaxIds`, which alone bounds
 * a first sync), says so, records the stream incomplete, and the table at most doubles per run
 * instead of growing without end. It answers the role query of the run's service check as the
 * service does, and 404 to anything else.
 */
describe('probing upward against a service answering 200 for every id', () => {
  let server: Server;
  let url = '';
  let asked = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      // The run's service check queries one role: answered as the service would, so the run
      // reaches the staff stream (a server answering 404 there is no service at all).
      if (req.method === 'POST' && /\/query\/core\/role$/.test(req.url ?? '')) {
        req.resume();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('[{"id":1}]');
        return;
      }
      const m = /\/action\/core\/staff\/(\d+)/.exec(req.url ?? '');
      if (m === null) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"status":404,"message":"not found"}}');
        return;
      }
      asked++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: Number(m[1]), PersonId: 1, salary: 1001 }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function run(file: string, probe: { probeMaxIds?: number } = { probeMaxIds: 500 }) {
    const client = new OhsClient(
      clientOptions({ baseUrl: url, token: 't', concurrency: 8, requestsPerSecond: 10_000 }),
    );
    const mirror = await openMirror(file);
    try {
      const report = await runSync(client, mirror, silentLogger, {
        ...defaults.sync,
        streams: ['staff'],
        idStart: { ...defaults.sync.idStart, staff: 1 },
        probeWindow: 5,
        ...probe,
        progress: false,
      });
      const rows = (await one(mirror, sql`SELECT count(*) AS n, max(id) AS top FROM staff`)) as {
        n: number;
        top: number;
      };
      return { report, rows };
    } finally {
      await client.close();
      await mirror.close();
    }
  }

  // One hostile service for both engines: each test counts the requests of its own runs.
  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    it('stops at the bound, logs it, and grows by at most the known span per run', async () => {
      const file = await target();
      const askedBefore = asked;
      const first = await run(file);
      expect(first.report.outcome, String(first.report.error)).toBe('ok');
      const stats = first.report.streams[0]!.stats;
      expect(stats.probeBounded).toBe(true);
      expect(first.report.streams[0]!.incomplete).toMatch(/ids above 500 not asked/);
      // Empty mirror: 500 ids above id 0.
      expect(first.rows).toEqual({ n: 500, top: 500 });
      expect(asked - askedBefore).toBeLessThanOrEqual(500 + 16);

      const second = await run(file);
      expect(second.report.outcome).toBe('ok');
      expect(second.report.streams[0]!.stats.probeBounded).toBe(true);
      // At most 500 more above 500.
      expect(second.rows.top).toBe(1000);
    });

    it('reaches as far again as the span of ids the stream holds, not a fixed floor', async () => {
      const file = await target();
      const tops: number[] = [];
      // A first sync holds nothing: sync.probeMaxIds bounds it (here 100); then no bound but
      // what the stream holds (the default sync.probeMaxIds, 1,000,000, is far above).
      for (const probe of [{ probeMaxIds: 100 }, {}, {}]) {
        const r = await run(file, probe);
        expect(r.report.outcome, String(r.report.error)).toBe('ok');
        expect(r.report.streams[0]!.stats.probeBounded).toBe(true);
        expect(r.report.streams[0]!.incomplete).toMatch(
          /^ids above \d+ not asked: probing stopped after \d+ ids above the highest known id, still finding records/,
        );
        tops.push(r.rows.top);
      }
      // 100 held over ids 1 to 100: 100 more; 200 held: 200 more.
      expect(tops).toEqual([100, 200, 400]);
    });
  });
});
