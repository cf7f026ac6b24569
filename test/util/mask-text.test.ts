import { describe, expect, it } from 'vitest';
import { where } from '../../src/schema/query.js';
import { maskText } from '../../src/util/mask.js';

/**
 * A query body's structure (the field names of a filter, a sort and `return`, the operators)
 * stays readable in service text; the values it carried, a filter's or a simple filter's, are
 * masked wherever the text quotes them.
 */
describe('maskText with a query body carried', () => {
  const body = {
    advancedFilter: { linkOperator: 'AND', items: [where('nameLast', 'startsWith', 'Zebulon-Quartz')] },
    ssn: '987654321',
    return: ['id', 'nameLast'],
    sortBy: 'nameLast',
    sortDirection: 'desc',
    pageSize: 500,
  };

  it('keeps field and operator names, masks the values', () => {
    const text = maskText(
      "unknown field 'nameLast' with operator startsWith, sorted desc by nameLast: 'Zebulon-Quartz' and 987654321 refused",
      { carried: body, shapes: true },
    );
    expect(text).toBe(
      "unknown field 'nameLast' with operator startsWith, sorted desc by nameLast: '***artz' and ***4321 refused",
    );
  });

  it('a structural key holding no name (free text, digits) is masked like any value', () => {
    const odd = {
      advancedFilter: { items: [{ columnField: '123-45-6789 x', operatorValue: 'equals', value: '' }] },
    };
    expect(maskText('got 123-45-6789 x', { carried: odd })).toBe('got ***789x');
  });
});

/**
 * Service text with `shapes`: what a service reworded is caught whatever was sent. The spellings
 * a service paraphrasing a refusal uses; the code, the status, the field names and the ids of the
 * records the request named stay.
 */
describe('maskText of service text (shapes)', () => {
  const body = {
    InvoiceId: 240019,
    OrgId: 1005,
    dateOfBirth: '1961-07-04',
    nameMiddle: 'Zebulon-Quartz',
    applicant: [{ ssn: '987-65-4321' }],
  };
  const spellings = [
    'July 4, 1961',
    '04-JUL-61',
    '07/04/61',
    '4 Jul 1961',
    '02/03/71',
    '3 Feb 1971',
    'February 3rd, 1971',
    '987.65.4321',
    '987-654321',
    '987 65 4321',
    'D1234567',
    'ZEBULON QUARTZ',
    'zebulon-quartz',
  ];

  it('removes every date-like and number-like spelling, keeps words, field names and record ids', () => {
    for (const s of spellings) {
      const out = maskText(`invoice 240019 of org 1005: field value ${s} refused`, {
        carried: body,
        shapes: true,
      });
      expect(out, s).not.toContain(s);
      expect(out, s).toMatch(/^invoice 240019 of org 1005: field value .* refused$/);
      // No digit left but the ids and the masks of carried values (`***4321`, `1961-**-**`).
      expect(out.replace(/240019|1005|\*\*\*\w+|\d{4}-\*\*-\*\*/g, ''), s).not.toMatch(/\d/);
    }
  });

  it('text masked twice stays masked once', () => {
    const once = maskText('ssn 987-65-4321 born 1961-07-04', { carried: body, shapes: true });
    expect(once).toBe('ssn ***4321 born 1961-**-**');
    expect(maskText(once, { carried: body, shapes: true })).toBe(once);
  });
});

/**
 * An allow-list, not a list of spellings: every token holding a digit of any script goes, after
 * the text is decoded as a person reads it (character references, percent-encoding, fullwidth
 * forms, accents). The forms an independent check found passing the former masks, and the
 * locales' spellings of a refused value.
 */
describe('maskText of service text in any spelling', () => {
  const body = {
    nameFirst: 'José',
    nameLast: "O'Quill",
    city: "Coeur d'Alene",
    dateOfBirth: '1961-07-04',
    applicant: [{ ssn: '987-65-4321' }],
    InvoiceId: 240019,
  };
  const forms = [
    '3. Februar 1971',
    '03 02 1971',
    'JOSÉ',
    'JOSE',
    '4 juillet 1961',
    '4. Juli 1961',
    '1961年7月4日',
    "Jul 4th, '61",
    '９８７−６５−４３２１',
    '٩٨٧-٦٥-٤٣٢١',
    '&#57;&#56;&#55;-&#54;&#53;-&#52;&#51;&#50;&#49;',
    '&#x39;&#x38;&#x37;&#x36;&#x35;&#x34;&#x33;&#x32;&#x31;',
    'Coeur%20d%27Alene',
    'O%27Quill',
    "Coeur d'Alene",
    '%39%38%37%36%35%34%33%32%31',
  ];
  /**
   * What a form leaves readable outside the masks of carried values (`***4321`, `1961-**-**`, as
   * records are masked): a digit in any script, a carried name in any case or accent.
   */
  const traces = (text: string) =>
    [
      ...text
        .replace(/\*\*\*\S+|\d{4}-\*\*-\*\*/g, '')
        .normalize('NFKD')
        .matchAll(/\p{N}+|jose|quill|alene/giu),
    ].map((m) => m[0]);

  it('leaves no digit and no carried name of any form; keeps the words and the record id', () => {
    for (const form of forms) {
      const out = maskText(`invoice 240019: value ${form} refused`, { carried: body, shapes: true });
      expect(out, form).toMatch(/^invoice 240019: value .* refused$/);
      expect(traces(out.replace('240019', '')), `${form} -> ${out}`).toEqual([]);
    }
  });

  it('a name with an accent is masked in any case, with or without the accent', () => {
    expect(maskText('JOSÉ and josé and JOSE', { carried: body, shapes: true })).toBe(
      '***Jos and ***Jos and ***Jos',
    );
  });
});
