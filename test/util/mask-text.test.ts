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

  it('removes every date-like and number-like spelling, keeps code, status, field names and record ids', () => {
    for (const s of spellings) {
      const out = maskText(`INVALID_REQUEST 400: invoice 240019 of org 1005: field value ${s} refused`, {
        carried: body,
        shapes: true,
      });
      expect(out, s).not.toContain(s);
      expect(out, s).toMatch(/^INVALID_REQUEST 400: invoice 240019 of org 1005: field value .* refused$/);
    }
  });

  it('text masked twice stays masked once', () => {
    const once = maskText('ssn 987-65-4321 born 1961-07-04', { carried: body, shapes: true });
    expect(once).toBe('ssn ***4321 born 1961-**-**');
    expect(maskText(once, { carried: body, shapes: true })).toBe(once);
  });
});
