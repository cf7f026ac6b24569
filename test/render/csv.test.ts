import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type CsvSettings, formatCents, writeReport } from '../../src/render/index.js';
import { defaults } from '../helpers/defaults.js';
import { outDir, report } from './fixtures.js';

/** The CSV of a report, with the configured settings (config/default.json) unless `csv` is given. */
async function csvOf(spec: Parameters<typeof report>[0] = {}, csv?: CsvSettings): Promise<Buffer> {
  const { files } = await writeReport(report(spec), {
    outDir: outDir(),
    name: 'unpaid-invoices',
    asOf: '2025-06-30',
    title: 'Unpaid invoices',
    formats: ['csv'],
    csv: csv ?? defaults.reports.csv,
  });
  expect(files).toHaveLength(1);
  expect(files[0]).toMatch(/unpaid-invoices-2025-06-30\.csv$/);
  // Order ageing holds person names: the file is the owner's only.
  expect(statSync(files[0]!).mode & 0o777).toBe(0o600);
  const bytes = readFileSync(files[0]!);
  // UTF-8 with a byte order mark by default, so Excel reads "Peña" right.
  if (csv === undefined) expect(bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(true);
  return csv === undefined ? bytes.subarray(3) : bytes;
}

describe('CSV renderer', () => {
  it('writes RFC 4180 UTF-8 after a BOM: keys as header, CRLF, quoting, typed values', async () => {
    const bytes = await csvOf();
    expect(bytes.toString('utf8')).toBe(
      [
        'orgId,org,invoiceDate,createdAt,balance,drugRate,ageHours,open',
        '1,"Peña, ""Hermanos""",2025-06-30,2025-06-10T12:00:00Z,1234.50,50.0,36.3,true',
        // A bare LF inside a field is quoted too; a timestamp without a zone is UTC.
        '2,"O\'Brien\nline two",2024-02-29,2025-06-10T08:30:15Z,-40.05,10.5,0.0,false',
        '3,,,,,,,',
        '',
      ].join('\r\n'),
    );
    // "Peña" is UTF-8: ñ is two bytes, C3 B1.
    expect(bytes.includes(Buffer.from([0x50, 0x65, 0xc3, 0xb1, 0x61]))).toBe(true);
  });

  it('holds the detail rows only, even when there are summaries and warnings', async () => {
    const text = (
      await csvOf({
        summaries: [
          { name: 'By org', columns: [{ key: 'n', title: 'N', type: 'integer' }], rows: [{ n: 1 }] },
        ],
        warnings: ['label "13/2025" is not a month'],
      })
    ).toString('utf8');
    expect(text.split('\r\n')).toHaveLength(5);
    expect(text).not.toContain('13/2025');
  });

  it('quotes a lone CR, a quote and a comma, and leaves other text bare', async () => {
    const text = (
      await csvOf({
        detail: {
          columns: [{ key: 's', title: 'S', type: 'string' }],
          rows: [{ s: 'a\rb' }, { s: 'say "hi"' }, { s: 'x,y' }, { s: ' spaced ' }, { s: '' }],
        },
      })
    ).toString('utf8');
    expect(text).toBe('s\r\n"a\rb"\r\n"say ""hi"""\r\n"x,y"\r\n spaced \r\n\r\n');
  });

  it('formats money exactly from cents, and numbers and percents with their decimals', async () => {
    expect([0, 5, -5, 100, 123450, -123456, 900719925474099].map(formatCents)).toEqual([
      '0.00',
      '0.05',
      '-0.05',
      '1.00',
      '1234.50',
      '-1234.56',
      '9007199254740.99',
    ]);
    const text = (
      await csvOf({
        detail: {
          columns: [
            { key: 'n', title: 'N', type: 'number' },
            { key: 'p0', title: 'P0', type: 'percent', decimals: 0 },
            { key: 'i', title: 'I', type: 'integer' },
            { key: 'b', title: 'B', type: 'boolean' },
            { key: 's', title: 'S', type: 'string' },
          ],
          // SQLite's 0/1 for booleans; a number in a text column prints as it is.
          rows: [
            { n: 2 / 3, p0: 0.125, i: -7, b: 1, s: -5 },
            { n: -0.001, p0: 1, i: 0, b: 0, s: 12.5 },
          ],
        },
      })
    ).toString('utf8');
    expect(text).toBe('n,p0,i,b,s\r\n0.67,13,-7,true,-5\r\n0.00,100,0,false,12.5\r\n');
  });

  it('writes every timestamp as UTC to the second, whatever ISO 8601 form it came in', async () => {
    const text = (
      await csvOf({
        detail: {
          columns: [{ key: 't', title: 'T', type: 'datetime' }],
          rows: [
            { t: '2025-06-10T12:00:00Z' },
            { t: '2025-06-10T14:30:00+02:00' },
            { t: '2025-06-10T12:00:00.987Z' },
            { t: '2025-06-10 08:30' },
            { t: '2024-02-29t23:59:59z' },
          ],
        },
      })
    ).toString('utf8');
    expect(text).toBe(
      't\r\n2025-06-10T12:00:00Z\r\n2025-06-10T12:30:00Z\r\n2025-06-10T12:00:00Z\r\n2025-06-10T08:30:00Z\r\n2024-02-29T23:59:59Z\r\n',
    );
    for (const t of ['2025-02-29T00:00:00Z', '2025-06-10T12:60:00Z', '2025-06-10', '12:00'])
      await expect(
        csvOf({ detail: { columns: [{ key: 't', title: 'T', type: 'datetime' }], rows: [{ t }] } }),
      ).rejects.toThrow('expected an ISO 8601 timestamp');
  });

  it('follows reports.csv: no BOM, `;` for Excel in decimal-comma locales, text as it is', async () => {
    const text = (
      await csvOf(
        {
          detail: {
            columns: [
              { key: 's', title: 'S', type: 'string' },
              { key: 'm', title: 'M', type: 'money' },
            ],
            rows: [
              { s: '+1 Logistics', m: 150 },
              { s: 'a;b', m: -5 },
            ],
          },
        },
        { bom: false, delimiter: ';', neutralise: false },
      )
    ).toString('utf8');
    expect(text).toBe('s;m\r\n+1 Logistics;1.50\r\n"a;b";-0.05\r\n');
  });
});
