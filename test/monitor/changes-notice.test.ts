import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobNotice } from '../../src/app/watch.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { ID_START } from '../helpers/mirror.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';

/**
 * The job's notice of what changed is made from the run's result, never from the changes CSV read
 * back: an employer named with the CSV's separators (`A;B<tab>C`) whose invoice is paid between two
 * nightly runs still gets its notice, with the counts of the report the run wrote.
 */
const NAME = 'A;B\tC';

describe.each(engines)('%s: the changes notice, from the run', (engine) => {
  const sim = withSim({ scale: 0.02 });
  const target = withTargets(engine);
  const received: JobNotice[] = [];
  let server: Server;
  let url = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (d: Buffer) => {
        raw += d.toString();
      });
      req.on('end', () => {
        received.push(JSON.parse(raw) as JobNotice);
        res.writeHead(204).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('an employer named A;B<tab>C, its invoice paid between two nightly runs: the notice is sent, its counts those of the CSV', async () => {
    const t = sim().tables;
    // An employer with an open invoice, renamed everywhere its name is read from.
    const open = t.Invoice.all().find((r) => typeof r.balance === 'number' && r.balance > 0);
    expect(open).toBeDefined();
    const orgId = open?.OrgId;
    for (const r of t.Invoice.all().filter((x) => x.OrgId === orgId)) t.Invoice.update(r.id, { c_org: NAME });
    for (const r of t.OrderItem.all().filter((x) => x.OrgId === orgId))
      t.OrderItem.update(r.id, { c_org: NAME });

    const dir = mkdtempSync(join(tmpdir(), 'ohs-changes-notice-'));
    const db = engine === 'postgres' ? await target() : join(dir, 'ohs.sqlite');
    mkdirSync(join(dir, 'config'));
    const out = join(dir, 'reports');
    writeFileSync(
      join(dir, 'config', 'local.json'),
      JSON.stringify({
        baseUrl: sim().url,
        db,
        logLevel: 'warn',
        api: { requestsPerSecond: 5000, retryBaseMs: 5, retryMaxMs: 200, maxRetries: 2 },
        sync: { idStart: ID_START },
        // CSV only: nothing but the run's result can give the headline.
        jobs: { formats: ['csv'], outDir: out },
        monitor: { notify: { webhook: url, command: null, onSuccess: true, timeoutMs: 10_000 } },
      }),
    );
    const nightly = () =>
      runOhs(['run', 'nightly'], {
        cwd: dir,
        env: { OHS_TOKEN: WRITE_TOKEN, OHS_DB: '', OHS_LOG_LEVEL: '', OHS_BASE_URL: '' },
        timeoutMs: 240_000,
      });
    const first = await nightly();
    expect(first.code, first.stderr).toBe(0);
    expect(received).toHaveLength(1);
    // Paid upstream: the next run's changes report has a line for the employer.
    t.Invoice.update(open?.id as number, { balance: 0 });
    const before = new Set(readdirSync(out));
    const next = await nightly();
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('notifying failed');
    expect(received).toHaveLength(2);
    const notice = received[1];

    // The changes CSV of the second run, read as a CSV is read (its one separator, quotes honoured).
    const file = readdirSync(out).find((f) => /^changes-.+\.csv$/.test(f) && !before.has(f));
    expect(file).toBeDefined();
    const lines = parse(readFileSync(join(out, file as string), 'utf8'), {
      columns: true,
      bom: true,
    }) as Record<string, string>[];
    const ours = lines.filter((l) => l.org === NAME);
    expect(ours.map((l) => l.kind)).toContain('INVOICE_PAID_ELSEWHERE');
    expect(notice?.changes?.counts?.lines).toBe(lines.length);
    expect(notice?.changes?.counts?.invoicesPaid).toBe(
      lines.filter((l) => l.kind === 'INVOICE_PAID_TOOL' || l.kind === 'INVOICE_PAID_ELSEWHERE').length,
    );
    expect(notice?.changes?.counts?.worse).toBe(
      lines.filter((l) => l.severity === 'action' || l.severity === 'worse').length,
    );
    // Its verdict, with no page written: the headline of the run, its level.
    expect(notice?.changes?.headline).toMatch(
      /^since the last run \(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [^)]+\): /,
    );
    expect(notice?.changes?.level).toMatch(/^(ok|warn|bad)$/);
    // Counts only: never the employer's name.
    expect(JSON.stringify(notice)).not.toContain('A;B');
  }, 300_000);
});
