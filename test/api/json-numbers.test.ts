import { describe, expect, it } from 'vitest';
import { mayHoldHugeNumber, parseJsonKeepingHugeNumbers } from '../../src/api/json-numbers.js';

/**
 * The pre-test of a body for numbers beyond a double (src/api/json-numbers.ts) answers as the one
 * expression it replaced, `/[eE]\+?\d{3}|\d{309}/`, on bodies built around its edges: runs of 15,
 * 16, 308 and 309 digits, exponents of two and three digits, signs, text around them.
 */
describe('mayHoldHugeNumber', () => {
  const reference = /[eE]\+?\d{3}|\d{309}/;
  const digits = (n: number) => '7'.repeat(n);
  const pieces = [
    '',
    '{"id":1,"name":"x"}',
    digits(15),
    digits(16),
    digits(308),
    digits(309),
    digits(400),
    '1e30',
    '1e308',
    '1E+309',
    '1e-400',
    '2.5e+12',
    'e123',
    'room 12e4',
    `${digits(200)}x${digits(200)}`,
    `"${digits(309)}"`,
  ];

  it('answers as /[eE]\\+?\\d{3}|\\d{309}/ on every body of one or two pieces', () => {
    let checked = 0;
    for (const a of pieces)
      for (const b of pieces)
        for (const text of [`${a}${b}`, `${a},${b}`, `[${a} ${b}]`]) {
          expect(mayHoldHugeNumber(text), text.slice(0, 60)).toBe(reference.test(text));
          checked++;
        }
    expect(checked).toBe(pieces.length * pieces.length * 3);
  });

  it('keeps a number beyond a double as its text, and parses the rest as JSON.parse does', () => {
    expect(parseJsonKeepingHugeNumbers(`{"a":1e309,"b":${digits(400)},"c":1.5}`)).toEqual({
      a: '1e309',
      b: digits(400),
      c: 1.5,
    });
    const plain = `{"a":${digits(15)},"b":"${digits(309)}","c":[1e30,-2]}`;
    expect(parseJsonKeepingHugeNumbers(plain)).toEqual(JSON.parse(plain));
  });
});
