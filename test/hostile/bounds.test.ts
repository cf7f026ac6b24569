import { once } from 'node:events';
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { zipUnpackedSize } from '../../src/input/zip-size.js';
import { listOutbox } from '../../src/writeback/index.js';
import { runOhs } from '../helpers/cli.js';
import { PEAK_OPTIONS, peakMb } from '../helpers/peak.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { configure, openInvoices, syncStreams, withMirror, workdir } from '../helpers/writeback.js';
import { writeXlsxBomb } from '../helpers/zip-bomb.js';

const MB = 1_048_576;

/** Writes `bytes` of a payment CSV (header, then the same row again and again), in 4 MB blocks. */
async function bigCsv(file: string, invoice: string, bytes: number): Promise<void> {
  const out = createWriteStream(file);
  out.write('InvoiceId,amountToPay\n');
  const line = `${invoice},1.00\n`;
  const block = line.repeat(Math.ceil((4 * MB) / line.length));
  for (let n = 0; n < bytes; n += block.length) if (!out.write(block)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

/**
 * Input files are bounded (config `input`), each bound refused with a clear error
 * before memory grows: the CLI child's own peak RSS (process.resourceUsage) stays under 500 MB.
 * One engine: the bounds are checked before the file's rows meet the mirror.
 */
describe('input bounds', { timeout: 300_000 }, () => {
  const sim = withSim({ scale: 0.02 });
  let dir = '';
  let db = '';
  let invoice = '';
  const env = { OHS_TOKEN: WRITE_TOKEN, NODE_OPTIONS: PEAK_OPTIONS };
  const plan = (file: string) =>
    runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env, timeoutMs: 120_000 });

  beforeAll(async () => {
    // Setup: the invoices synced into the mirror the tests below plan against.
    ({ dir, db } = workdir(sim().url));
    await syncStreams(sim(), db, ['invoice']);
    invoice = openInvoices(sim())[0]?.id ?? '';
    expect(invoice).not.toBe('');
  });

  it('a 200 MB CSV plan is refused by its size, peak under 500 MB', async () => {
    const file = join(dir, 'big.csv');
    await bigCsv(file, invoice, 200 * MB);
    const r = await plan(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /ohs: INPUT_INVALID: .*big\.csv: 200\.\d MB, over input\.maxFileBytes \(32\.0 MB\)/,
    );
    expect(peakMb(r.stderr)).toBeLessThan(500);
    expect(await withMirror(db, (m) => listOutbox(m))).toEqual([]);
  });

  it('an XLSX zip bomb (under 2 MB holding 452 MB of XML) is refused from its zip directory, peak under 500 MB', async () => {
    const file = join(dir, 'bomb.xlsx');
    const { bytes, unpacked } = await writeXlsxBomb(file, invoice, 452);
    expect(bytes).toBeLessThan(2 * MB);
    expect(unpacked).toBeGreaterThan(400 * MB);
    expect(await zipUnpackedSize(file)).toBe(unpacked);
    const r = await plan(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /ohs: INPUT_INVALID: .*bomb\.xlsx: unpacks to 4\d\d\.\d MB .*over input\.maxXlsxUnpackedBytes/,
    );
    expect(peakMb(r.stderr)).toBeLessThan(500);
  });

  it('a 20 MB cell is refused naming the file and row; too many rows naming the bound; peak under 500 MB', async () => {
    const file = join(dir, 'cell.csv');
    writeFileSync(file, `InvoiceId,amountToPay\n${invoice},1.00\n${invoice},"${'9'.repeat(20 * MB)}"\n`);
    const r = await plan(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ohs: INPUT_INVALID: .*cell\.csv:3: .*input\.maxFieldChars 65536/);
    expect(peakMb(r.stderr)).toBeLessThan(500);

    configure(dir, { input: { maxRows: 100, maxFieldChars: 10 } });
    const rows = join(dir, 'rows.csv');
    writeFileSync(rows, `InvoiceId,amountToPay\n${`${invoice},1.00\n`.repeat(101)}`);
    const many = await plan(rows);
    expect(many.stderr).toMatch(/ohs: INPUT_INVALID: .*rows\.csv: 101 rows, over input\.maxRows \(100\)/);
    const wide = join(dir, 'wide.csv');
    writeFileSync(wide, `InvoiceId,amountToPay\n${invoice},1.00\n${invoice},12345678901\n`);
    const long = await plan(wide);
    expect(long.stderr).toMatch(
      /ohs: INPUT_INVALID: .*wide\.csv:3: amountToPay: 11 characters, over input\.maxFieldChars \(10\)/,
    );
    configure(dir, { input: { maxRows: 200_000, maxFieldChars: 65_536 } });
    expect(await withMirror(db, (m) => listOutbox(m))).toEqual([]);
  });
});
