import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { metaKeys, readMeta } from '../../src/mirror/meta.js';
import { type CliResult, runOhs } from '../helpers/cli.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { ID_START, withMirror } from '../helpers/writeback.js';

/**
 * One rate budget per mirror, across real `ohs` processes (built CLI, real HTTP, one SQLite
 * file): a sync learns the sandbox's limit and records it; a new process starts at it; a sync
 * and an apply running at once share it, so together they stay within the limit. Assertions are
 * counts (429s, payments, rows), never timings.
 */
const LIMIT = 25;

interface RateLog {
  rate: number | null;
  cuts: { throttled: number; latency: number; unavailable: number };
  leases: number;
  startedFromLearned: boolean;
}

/** The `rate` of the "sync ok" log line (NDJSON on stderr). */
function rateOf(result: CliResult): RateLog {
  const line = result.stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg?: string; rate?: RateLog })
    .find((l) => l.msg === 'sync ok');
  if (line?.rate === undefined)
    throw new Error(`no 'sync ok' line with a rate in: ${result.stderr.slice(-2000)}`);
  return line.rate;
}

describe('shared rate budget across processes', () => {
  const sim = withSim({ scale: 0.05 });
  const dir = mkdtempSync(join(tmpdir(), 'ohs-rate-'));
  const db = join(dir, 'ohs.sqlite');
  const env = { OHS_TOKEN: WRITE_TOKEN };
  const ohs = (args: string[]) => runOhs(args, { cwd: dir, env, timeoutMs: 240_000 });

  it('a sync learns the limit and records it in the mirror (keyed without the token)', async () => {
    const s = sim();
    mkdirSync(join(dir, 'config'));
    writeFileSync(
      join(dir, 'config', 'local.json'),
      JSON.stringify({
        baseUrl: s.url,
        api: { retryBaseMs: 5, retryMaxMs: 2000, maxRateLimitRetries: 200 },
        sync: { idStart: ID_START },
      }),
    );
    // Invoices for the payments of the last test, synced before the limit is switched on.
    expect((await ohs(['sync', 'invoice'])).code).toBe(0);
    s.configure({ rateLimit: LIMIT });
    s.resetStats();

    const first = await ohs(['sync', 'staff', '--full']);
    expect(first.code, first.stderr).toBe(0);
    const rate = rateOf(first);
    expect(rate.startedFromLearned).toBe(false);
    expect(rate.cuts.throttled).toBeGreaterThanOrEqual(1); // it had to find the limit
    expect(s.stats.rateLimited).toBeGreaterThanOrEqual(1);

    const rows = await withMirror(db, (m) => m.db.selectFrom('rate_budget').selectAll().execute());
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row?.key.startsWith(`${s.url}#`)).toBe(true);
    expect(row?.key).not.toContain(WRITE_TOKEN);
    // Keyed: not the token's plain hash (which a guessed token would confirm offline), and the
    // key differs per mirror (its random secret in mirror_meta).
    const plain = createHash('sha256').update(WRITE_TOKEN).digest('hex');
    expect(row?.key).not.toContain(plain.slice(0, 16));
    const secret = await withMirror(db, (m) => readMeta(m.db, metaKeys.rateKeySecret));
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.good_rate).toBeGreaterThan(LIMIT / 3);
    expect(row?.good_rate).toBeLessThan(LIMIT * 3);
  });

  it('a new process starts at the learned rate instead of rediscovering it', async () => {
    const s = sim();
    s.resetStats();
    const again = await ohs(['sync', 'staff', '--full']);
    expect(again.code, again.stderr).toBe(0);
    expect(rateOf(again).startedFromLearned).toBe(true);
    expect(s.stats.rateLimited).toBeLessThanOrEqual(Math.max(3, 0.05 * s.stats.requests));
  });

  it('a sync and an apply at once share one budget: few 429s, every payment once', async () => {
    const s = sim();
    const rows: string[] = [];
    for (const i of s.tables.Invoice.all()) {
      if (typeof i.dropInvoice === 'string') continue;
      const room = Math.min(10, Math.floor(Number(i.balance ?? 0)));
      for (let k = 0; k < room && rows.length < 40; k++) rows.push(`${String(i.id)},1.00`);
    }
    expect(rows).toHaveLength(40);
    writeFileSync(join(dir, 'payments.csv'), `InvoiceId,amountToPay\n${rows.join('\n')}\n`);
    expect((await ohs(['plan', 'payments.csv', '--op', 'payment'])).code).toBe(0);

    s.resetStats();
    // Each process alone would start at the learned rate: both at once, unshared, would send
    // twice the limit and collect 429s by the hundred.
    const [sync, apply] = await Promise.all([ohs(['sync', 'applicant', '--full']), ohs(['apply', '--yes'])]);
    expect(sync.code, sync.stderr).toBe(0);
    expect(apply.code, apply.stderr).toBe(0);
    expect(s.stats.writesApplied.createPayment).toBe(40);
    expect(rateOf(sync).leases).toBeGreaterThan(0);
    expect(s.stats.requests).toBeGreaterThan(150);
    expect(s.stats.rateLimited).toBeLessThanOrEqual(Math.max(5, 0.1 * s.stats.requests));
  });
});
