import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { INSTANT_WORDS, instantIn, parseDuration, readInstant } from '../src/dates.js';
import { runOhs } from './helpers/cli.js';

/**
 * Every instant a person types is read by one grammar (dates.ts `readInstant`: ISO 8601, a time
 * with an optional `Z` or offset of at most 14 hours), whichever flag it comes by, and refused
 * with one message before anything is opened; durations by one grammar too (`parseDuration`).
 */
const dir = mkdtempSync(join(tmpdir(), 'ohs-instant-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const db = join(dir, 'none.sqlite');

async function refused(args: string[]): Promise<string> {
  const r = await runOhs([...args, '--db', db], { cwd: dir });
  expect(r.code, r.stderr).toBe(2);
  // One line, and nothing made.
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  return r.stderr;
}

describe('one instant grammar for every instant flag', () => {
  const flags: [string, string[]][] = [
    ['--as-of-time', ['report', 'compliance', '--as-of-time']],
    ['--from', ['report', 'ar-rollforward', '--from']],
    ['--to', ['report', 'ar-rollforward', '--to']],
    ['--since', ['report', 'changes', '--since']],
    ['--option from=', ['report', 'all', '--option']],
  ];
  // The other forms refused are read by the same function below, without a process each.
  for (const bad of ['06/01/2026', '2026-06-01T00:00+99:00']) {
    it(`refuses ${bad} by every instant flag, with one message`, async () => {
      for (const [name, args] of flags) {
        const value = name.startsWith('--option') ? `from=${bad}` : bad;
        const err = await refused([...args, value]);
        expect(err, name).toContain(INSTANT_WORDS);
      }
    });
  }

  it('reads the forms it takes, the same by every flag', () => {
    const at = (text: string, zone = 'UTC') => {
      const w = readInstant(text, true);
      return w === null ? null : instantIn(w, zone);
    };
    expect(at('2026-06-01T02:00:00Z')).toBe(Date.UTC(2026, 5, 1, 2));
    expect(at('2026-06-01 02:00')).toBe(Date.UTC(2026, 5, 1, 2));
    expect(at('2026-06-01T02:00:00.250+02:00')).toBe(Date.UTC(2026, 5, 1, 0, 0, 0, 250));
    expect(at('2026-06-01T02:00', 'America/New_York')).toBe(Date.UTC(2026, 5, 1, 6));
    // A date alone where the flag takes one: the start of that day in the zone.
    expect(at('2026-06-01', 'America/New_York')).toBe(Date.UTC(2026, 5, 1, 4));
    expect(readInstant('2026-06-01', false)).toBeNull();
    for (const bad of [
      '2026-06-01T24:00Z',
      '2026-02-30T00:00Z',
      '2026-06-01T00:00+14:30',
      '2026-06-01T00:00 Z',
    ])
      expect(readInstant(bad, true), bad).toBeNull();
  });

  it('reads one duration grammar', () => {
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(parseDuration('26h')).toBe(26 * 3_600_000);
    expect(parseDuration('2w')).toBe(14 * 86_400_000);
    expect(parseDuration('3600s')).toBe(3_600_000);
    expect(parseDuration('1.5d')).toBe(36 * 3_600_000);
    for (const bad of ['7x', '-1d', '0h', '99999999d', '1e3s', '7 d w'])
      expect(parseDuration(bad), bad).toBeNull();
  });

  it('refuses a bad instant in config reports.options when the command starts', async () => {
    const cwd = join(dir, 'cfg');
    mkdirSync(join(cwd, 'config'), { recursive: true });
    writeFileSync(
      join(cwd, 'config', 'local.json'),
      JSON.stringify({ reports: { options: { since: '06/01/2026' } } }),
    );
    const r = await runOhs(['report', 'compliance', '--db', db], { cwd });
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.stderr).toContain('config reports.options.since');
    expect(r.stderr).toContain(INSTANT_WORDS);
  });
});
