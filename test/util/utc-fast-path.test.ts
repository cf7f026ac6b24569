import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTimeZone } from '../../src/config/schema.js';
import { instantWords, localDateOf, today, zonedToUtc } from '../../src/dates.js';

/**
 * UTC's wall clock is read from the Date's own UTC fields, without an Intl formatter (whose first
 * use costs every command about 35 ms of CPU: src/dates.ts). Each answer must be Intl's, for every
 * spelling of UTC, at any instant of years 1000 to 9999; an offset zone still goes through Intl.
 */
const UTC_SPELLINGS = ['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT'] as const;
const instants = fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) });

function intlParts(ms: number, timeZone: string): Record<string, string> {
  const f = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  const p: Record<string, string> = {};
  for (const part of f.formatToParts(new Date(ms))) p[part.type] = part.value;
  return p;
}

describe('UTC without Intl', () => {
  it("gives Intl's wall clock, date and words for every spelling of UTC", () => {
    fc.assert(
      fc.property(instants, fc.constantFrom(...UTC_SPELLINGS), (ms, zone) => {
        const p = intlParts(ms, zone);
        expect(instantWords(ms, zone)).toBe(
          `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} UTC`,
        );
        expect(localDateOf(ms, zone)).toEqual({
          year: Number(p.year),
          month: Number(p.month),
          day: Number(p.day),
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips a wall-clock time of UTC, and of an offset zone through Intl', () => {
    fc.assert(
      fc.property(
        instants,
        fc.constantFrom(...UTC_SPELLINGS, 'America/Chicago', 'Asia/Kolkata'),
        (ms, zone) => {
          const floored = Math.floor(ms / 1000) * 1000;
          const p = intlParts(floored, zone);
          const date = { year: Number(p.year), month: Number(p.month), day: Number(p.day) };
          const back = zonedToUtc(date, Number(p.hour), Number(p.minute), Number(p.second), 0, zone);
          // A wall-clock time repeated by a DST change reads as its earlier instant.
          expect(intlParts(back, zone)).toEqual(p);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("says today's date in UTC as Intl does, and takes UTC's spellings as zones", () => {
    const before = new Intl.DateTimeFormat('en-CA', { timeZone: 'UTC' }).format(new Date());
    const got = today('UTC');
    const after = new Intl.DateTimeFormat('en-CA', { timeZone: 'UTC' }).format(new Date());
    expect([before, after]).toContain(got);
    for (const zone of UTC_SPELLINGS) expect(isTimeZone(zone)).toBe(true);
    expect(isTimeZone('utc')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});
