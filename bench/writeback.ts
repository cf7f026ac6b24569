import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PQueue from 'p-queue';
import { request } from 'undici';
import { createLogger } from '../src/log.js';
import { openMirror } from '../src/mirror/index.js';
import { operations } from '../src/schema/index.js';
import { runSync } from '../src/sync/index.js';
import { applyOutbox, applySettings, planFile, planSettings } from '../src/writeback/index.js';
import { configuredClient, defaults, measure, spawnSandbox, table } from './sandbox.js';

/**
 * `npm run bench -- writeback`: payments applied per second by `ohs apply`'s runner (claim,
 * invoice read as evidence, POST, settle, mirror update) against the sandbox at 20 ms latency,
 * beside two bare loops of undici requests at the same concurrency in the same run: the same
 * POSTs alone (the issue's baseline), and the same GET + POST pairs (the same requests the
 * runner makes, so the ratio shows what the outbox and claims cost). One payment per invoice,
 * so every lane is independent: if claims serialised lanes, the rate would not grow with
 * concurrency.
 */
const TOKEN = 'bench-token';
const silent = createLogger({ level: 'silent', pretty: false });

type Payment = { InvoiceId: string; amountToPay: number };

async function bareLoop(
  url: string,
  payments: Payment[],
  concurrency: number,
  read: boolean,
): Promise<number> {
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const pool = new PQueue({ concurrency });
  await pool.addAll(
    payments.map((p) => async () => {
      if (read) {
        const res = await request(`${url}${operations.getInvoice.path.replace('{id}', p.InvoiceId)}`, {
          headers,
        });
        await res.body.json();
      }
      const res = await request(`${url}${operations.createPayment.path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(p),
      });
      await res.body.json();
    }),
  );
  return payments.length;
}

/** Plans the file (not measured), then measures the apply alone. */
async function runnerLoop(url: string, db: string, file: string, concurrency: number) {
  const mirror = await openMirror(db);
  const client = configuredClient(url, TOKEN, { concurrency, requestsPerSecond: 100_000 });
  try {
    // Not refused as "looks like cents", nor held for a confirmation: the plan is not measured.
    await planFile(mirror, file, {
      ...planSettings(defaults),
      op: 'payment',
      centsRatio: 0,
      confirm: () => Promise.resolve(true),
    });
    return await measure(async () => {
      const report = await applyOutbox(client, mirror, {
        ...applySettings(defaults),
        concurrency,
        deletes: 'confirmed',
      });
      if (report.counts.applied !== report.lines.length)
        throw new Error(`not all applied: ${JSON.stringify(report.counts)}`);
      return report.counts.applied;
    });
  } finally {
    await client.close();
    await mirror.close();
  }
}

export async function benchWriteback(scale: number): Promise<string> {
  // The data set of the tests' anchor date, every answer 20 ms late.
  const data = ['--anchor-date', '2026-06-15', '--latency-ms', '20', '--scale', String(scale)];
  const sandbox = await spawnSandbox([...data, '--token', TOKEN]);
  const dir = mkdtempSync(join(tmpdir(), 'ohs-bench-wb-'));
  try {
    const db = join(dir, 'bench.sqlite');
    const syncClient = configuredClient(sandbox.url, TOKEN, { concurrency: 8, requestsPerSecond: 100_000 });
    const mirror = await openMirror(db);
    await runSync(syncClient, mirror, silent, {
      ...defaults.sync,
      streams: ['invoice'],
      idStart: { ...defaults.sync.idStart, invoice: 240001 },
      progress: false,
    });
    const invoices = (
      await mirror.db.selectFrom('invoice').select('id').where('deleted_at', 'is', null).execute()
    ).map((r) => r.id);
    await mirror.close();
    await syncClient.close();
    const n = Math.min(invoices.length, 600);
    const rows: Record<string, string | number>[] = [];
    let round = 0;
    for (const concurrency of [1, 4, 8]) {
      const count = concurrency === 1 ? Math.min(n, 150) : n;
      // Each round its own amounts, so its file's rows are new items.
      const payments = invoices
        .slice(0, count)
        .map((id) => ({ InvoiceId: String(id), amountToPay: (++round % 9000) / 100 + 0.01 }));
      const file = join(dir, `pay-${concurrency}.csv`);
      writeFileSync(
        file,
        `InvoiceId,amountToPay\n${payments.map((p) => `${p.InvoiceId},${p.amountToPay.toFixed(2)}`).join('\n')}\n`,
      );
      const bare = await measure(() => bareLoop(sandbox.url, payments, concurrency, false));
      const pairs = await measure(() => bareLoop(sandbox.url, payments, concurrency, true));
      const ours = await runnerLoop(sandbox.url, db, file, concurrency);
      const rate = (m: { result: number; seconds: number }) => m.result / m.seconds;
      rows.push({
        concurrency,
        payments: ours.result,
        'bare POST/s': Math.round(rate(bare)),
        'bare GET+POST/s': Math.round(rate(pairs)),
        'apply pay/s': Math.round(rate(ours)),
        'apply/bare POST': (rate(ours) / rate(bare)).toFixed(2),
        'apply/bare GET+POST': (rate(ours) / rate(pairs)).toFixed(2),
        'apply peak MB': ours.peakRssMb,
      });
    }
    return `Write-back: payments through ohs apply's runner, sandbox latency 20 ms, one payment per invoice\n${table(rows)}`;
  } finally {
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
