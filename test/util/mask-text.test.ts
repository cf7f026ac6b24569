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
