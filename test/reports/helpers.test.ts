import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dayNumber, formatDate, parseDate, parseInstant } from '../../src/dates.js';
import { parseMonthLabel } from '../../src/reports/compliance/index.js';
import { ceilDiv, floorDiv, statusOf } from '../../src/reports/compliance/math.js';
import { ratesOf } from '../../src/reports/compliance/rates.js';
import { externalSort } from '../../src/reports/core/external-sort.js';
import { toCents } from '../../src/reports/core/values.js';
import { agingBuckets } from '../../src/reports/unpaid-invoices/index.js';

describe('report helpers', () => {
  it('reads dates in the reporting time zone', () => {
    const d = (s: string, tz = 'UTC') => {
      const x = parseDate(s, tz);
      return x === null ? null : formatDate(x);
    };
    expect(d('2025-06-30')).toBe('2025-06-30');
    expect(d('06/30/2025')).toBe('2025-06-30');
    expect(d('2025-02-30')).toBeNull();
    expect(d('n/a')).toBeNull();
    // A timestamp with an offset is converted into the zone; one without is wall time there.
    expect(d('2025-07-01T02:00:00Z', 'America/New_York')).toBe('2025-06-30');
    expect(d('2025-07-01T02:00:00Z')).toBe('2025-07-01');
    expect(d('2025-07-01T02:00:00', 'America/New_York')).toBe('2025-07-01');
    expect(parseInstant('2025-06-10T12:00:00+02:00', 'UTC')).toBe(Date.parse('2025-06-10T10:00:00Z'));
    expect(parseInstant('2025-06-10 08:00', 'America/New_York')).toBe(Date.parse('2025-06-10T12:00:00Z'));
    expect(parseInstant('06/10/2025 08:00', 'UTC')).toBe(Date.parse('2025-06-10T08:00:00Z'));
    expect(dayNumber({ year: 2025, month: 6, day: 30 }) - dayNumber({ year: 2025, month: 3, day: 31 })).toBe(
      91,
    );
  });

  it('keeps money in whole cents, rounding half away from zero', () => {
    expect([0.004, 0.005, -0.005, 25.5, 0.29, 1.005, 685.5].map(toCents)).toEqual([
      0, 1, -1, 2550, 29, 101, 68550,
    ]);
    expect(toCents(null)).toBeNull();
    expect(toCents('12.34')).toBe(1234);
  });

  it('parses OrgMonth labels of every documented form', () => {
    expect(
      ['2025-03', '2025-3', '03/2025', '3/2025', '2025-13', 'n/a', '', '2025-03-01'].map(parseMonthLabel),
    ).toEqual([
      { year: 2025, month: 3 },
      { year: 2025, month: 3 },
      { year: 2025, month: 3 },
      { year: 2025, month: 3 },
      null,
      null,
      null,
      null,
    ]);
  });

  it('divides exactly and derives statuses', () => {
    expect([ceilDiv(7n, 2n), ceilDiv(-7n, 2n), floorDiv(-7n, 2n), floorDiv(6n, 3n)]).toEqual([
      4n,
      -3n,
      -4n,
      2n,
    ]);
    // m < 12: completed against the target, then the floor of expected, then picks.
    const twelfths = (x: number) => BigInt(Math.round(x * 12 * 1_000_000));
    expect(statusOf(6, 10, twelfths(5), 6, 10, 120)).toBe('MET');
    expect(statusOf(6, 10, twelfths(5.9), 6, 5, 120)).toBe('ON_TRACK');
    expect(statusOf(6, 10, twelfths(5), 5, 4, 120)).toBe('PENDING_RESULTS');
    expect(statusOf(6, 10, twelfths(5), 4, 4, 120)).toBe('BEHIND');
    expect(statusOf(12, 10, twelfths(10), 12, 9, 120)).toBe('NOT_MET');
    // No exposure: N/A, never MET on a target of 0.
    expect(statusOf(6, 0, 0n, 0, 0, 0)).toBe('N/A');
    // AT_RISK: 16 still needed in 3 months at a pace of ceil(9 / 9) = 1 a month.
    expect(statusOf(9, 20, twelfths(3), 9, 4, 72)).toBe('AT_RISK');
    // On pace: 6 needed in 6 months at 1 a month is not at risk (not more than the months left).
    expect(statusOf(6, 10, twelfths(4), 6, 4, 96)).toBe('ON_TRACK');
  });

  it('knows the agency rates (docs/reports.md, Regulatory sources)', () => {
    expect(ratesOf('phmsa', 2024)?.rates).toEqual({ drug: 25, alcohol: null });
    expect(ratesOf('PHMSA', 2025)?.rates).toEqual({ drug: 50, alcohol: null });
    expect(ratesOf('FAA', 2030)).toEqual({ rates: { drug: 25, alcohol: 10 }, year: 2026, nearest: true });
    expect(ratesOf('ACME', 2025)).toBeUndefined();
  });

  it('names aging buckets from periods', () => {
    expect(agingBuckets(30, 3).map((b) => b.label)).toEqual(['Current', '1-30', '31-60', '61-90', '91+']);
  });

  it('sorts through temporary files and removes them, also when the reader stops early', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ohs-sort-test-'));
    async function* numbers(): AsyncGenerator<number> {
      for (let i = 0; i < 1000; i++) yield (i * 7919) % 1000;
    }
    const sorted: number[] = [];
    for await (const n of externalSort(numbers(), (a, b) => a - b, { chunkSize: 64, dir })) sorted.push(n);
    expect(sorted).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(readdirSync(dir)).toEqual([]);
    for await (const n of externalSort(numbers(), (a, b) => b - a, { chunkSize: 64, dir })) {
      expect(n).toBe(999);
      break;
    }
    expect(readdirSync(dir)).toEqual([]);
    await rm(dir, { recursive: true });
  });
});
