import { describe, expect, it } from 'vitest';
import { cellInWords, inWords, labelOf } from '../../src/render/html/words.js';
import { reports } from '../../src/reports/index.js';

/**
 * Each report declares the words of its codes (its folder's words.ts); the renderer says a code
 * through the words it is given, and names no report's codes itself.
 */
describe('codes in words', () => {
  it('every report that has codes declares their words, and each word is words', () => {
    const declared = reports.filter((r) => Object.keys(r.words).length > 0).map((r) => r.name);
    expect(declared).toEqual(
      expect.arrayContaining(['compliance', 'catch-up', 'accounts-at-risk', 'order-ageing', 'changes']),
    );
    for (const r of reports)
      for (const [code, said] of Object.entries(r.words)) {
        expect(code, r.name).toMatch(/^[A-Z][A-Z0-9_]*[A-Z0-9]$/);
        // A word is never another code of the same report (it would be said twice, or not at all).
        expect(
          said.split(/\W+/).filter((w) => r.words[w] !== undefined),
          `${r.name} ${code}`,
        ).toEqual([]);
      }
  });

  const words = {
    STOPPED_TESTING: 'stopped testing',
    TESTING_UNPAID: 'testing unpaid',
    ON_TRACK: 'on track',
  };

  it('replaces the codes it is given and nothing else', () => {
    expect(inWords('249 STOPPED_TESTING (all on an assumed rate); 58 TESTING_UNPAID', words)).toBe(
      '249 stopped testing (all on an assumed rate); 58 testing unpaid',
    );
    // An error code, a bucket, A/R, a sheet name and a level stay as they are.
    expect(inWords('AS_OF_BEFORE_HISTORY: 91+ of A/R (sheet VOID) OK', words)).toBe(
      'AS_OF_BEFORE_HISTORY: 91+ of A/R (sheet VOID) OK',
    );
    expect(labelOf('STOPPED_TESTING', words)).toBe('Stopped testing');
    expect(labelOf('Open balance', words)).toBe('Open balance');
  });

  it('says a cell of several codes with their counts in words', () => {
    const flags = { NO_POLICY: 'no policy imported', NO_SELECTION_Q1: 'no selection in Q1' };
    expect(cellInWords('NO_POLICY(11); NO_SELECTION_Q1(1)', flags)).toBe(
      'no policy imported (11); no selection in Q1 (1)',
    );
    expect(cellInWords('ON_TRACK (assumed rate)', words)).toBe('on track (assumed rate)');
    expect(cellInWords('N/A', { 'N/A': 'no pool (n/a)' })).toBe('no pool (n/a)');
  });
});
