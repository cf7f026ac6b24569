import { describe, expect, it } from 'vitest';
import { codeWords, inWords, labelOf } from '../../src/render/html/words.js';
import { kindWords } from '../../src/reports/accounts-at-risk/columns.js';
import { statusWords } from '../../src/reports/compliance/columns.js';
import { verdictWords } from '../../src/reports/compliance/plan-columns.js';
import { stageWords } from '../../src/reports/order-ageing/columns.js';

/**
 * The words of a verdict's codes (render/html/words.ts) and the words a page's table shows for
 * the same code (each column's `words`) are one: where both name a code, they agree.
 */
describe('codes in words', () => {
  it.each([
    ['compliance statuses', statusWords],
    ['catch-up verdicts', verdictWords],
    ['kinds of risk', kindWords],
    ['order stages', stageWords],
  ])('the verdicts and the tables say %s alike', (_what, columnWords) => {
    const shared = Object.keys(columnWords).filter((code) => codeWords[code] !== undefined);
    expect(shared.length).toBeGreaterThan(0);
    for (const code of shared) expect(codeWords[code], code).toBe(columnWords[code]);
  });

  it('replaces the codes it names and nothing else', () => {
    expect(inWords('249 STOPPED_TESTING (all on an assumed rate); 58 TESTING_UNPAID')).toBe(
      '249 stopped testing (all on an assumed rate); 58 testing unpaid',
    );
    expect(inWords('ON_TRACK → BEHIND, AT_RISK → MET')).toBe('on track → behind, at risk → met');
    // An error code, a bucket, A/R, a sheet name and a level stay as they are.
    expect(inWords('AS_OF_BEFORE_HISTORY: 91+ of A/R (sheet VOID) OK')).toBe(
      'AS_OF_BEFORE_HISTORY: 91+ of A/R (sheet VOID) OK',
    );
    expect(labelOf('STOPPED_TESTING')).toBe('Stopped testing');
    expect(labelOf('Open balance')).toBe('Open balance');
  });
});
