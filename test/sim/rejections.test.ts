import { describe, expect, it } from 'vitest';
import { call, WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { asList, errorOf, expect400, pathOf, rawRequest, sortedIds } from '../helpers/sim-data.js';

const item = { columnField: 'ProductId', operatorValue: 'equals', value: '201' };
const af = (items: unknown[], extra: Record<string, unknown> = {}) => ({
  advancedFilter: { linkOperator: 'AND', items, ...extra },
});

/** [name, body, fragment of the error message] for POST /vLatest/query/core/orderitem. */
const queryRejections: [string, unknown, string | RegExp][] = [
  [
    'extra key in advancedFilter',
    af([item], { sortModel: [] }),
    "advancedFilter: unexpected key 'sortModel'",
  ],
  ['extra key in an item', af([{ ...item, id: 1 }]), "advancedFilter.items[0]: unexpected key 'id'"],
  ['missing linkOperator', { advancedFilter: { items: [item] } }, 'advancedFilter.linkOperator: required'],
  ['lower-case linkOperator', { advancedFilter: { linkOperator: 'and', items: [item] } }, 'linkOperator'],
  ['missing items', { advancedFilter: { linkOperator: 'OR' } }, 'advancedFilter.items: required'],
  ['items not an array', { advancedFilter: { linkOperator: 'OR', items: item } }, 'advancedFilter.items'],
  ['advancedFilter not an object', { advancedFilter: [item] }, 'advancedFilter: expected an object'],
  ['item not an object', af(['ProductId=201']), 'advancedFilter.items[0]: expected an object'],
  [
    'missing columnField',
    af([item, { operatorValue: 'equals', value: '1' }]),
    'advancedFilter.items[1].columnField: required',
  ],
  [
    'missing operatorValue',
    af([{ columnField: 'ProductId', value: '1' }]),
    'items[0].operatorValue: required',
  ],
  ['missing value', af([{ columnField: 'ProductId', operatorValue: 'equals' }]), 'items[0].value: required'],
  [
    'missing value on isEmpty too',
    af([{ columnField: 'orderedBy', operatorValue: 'isEmpty' }]),
    'items[0].value: required',
  ],
  ['value as a number', af([{ ...item, value: 201 }]), 'items[0].value: required, a string'],
  ['unknown operator', af([{ ...item, operatorValue: 'like' }]), 'operatorValue: required, one of contains'],
  ['operator in other case', af([{ ...item, operatorValue: 'EQUALS' }]), 'operatorValue'],
  [
    'unknown field in columnField',
    af([{ ...item, columnField: 'nope' }]),
    "columnField: unknown field 'nope'",
  ],
  ['field named in other case', af([{ ...item, columnField: 'productid' }]), "unknown field 'productid'"],
  ['unknown field in a simple filter', { nope: 'x' }, "simple filter: unknown field 'nope'"],
  ['unknown field in return', { return: ['id', 'nope'] }, "return: unknown field 'nope'"],
  ['return not an array', { return: 'id' }, 'return: expected an array'],
  ['return with a non-string', { return: ['id', 5] }, 'return: expected an array'],
  ['unknown field in sortBy', { sortBy: 'nope' }, "sortBy: unknown field 'nope'"],
  ['sortBy not a string', { sortBy: ['id'] }, 'sortBy: expected a field name'],
  ['bad sortDirection', { sortBy: 'id', sortDirection: 'DESC' }, 'sortDirection'],
  ['page as a string', { page: '2' }, 'page: expected a whole number'],
  ['page 0', { page: 0 }, 'page: expected a whole number of at least 1'],
  ['pageSize 0', { pageSize: 0 }, 'pageSize: expected a whole number of at least 1, got 0'],
  ['pageSize negative', { pageSize: -5 }, 'pageSize'],
  ['pageSize a fraction', { pageSize: 2.5 }, 'pageSize'],
  ['isAdditionalData as a string', { isAdditionalData: 'true' }, 'isAdditionalData: expected true or false'],
  ['simple filter with a number value', { OrgId: 1001 }, "simple filter 'OrgId': expected a string value"],
  ['simple filter with a boolean value', { isNotModifiable: true }, "simple filter 'isNotModifiable'"],
  ['simple filter with null', { orderedBy: null }, "simple filter 'orderedBy'"],
  ['simple filter non-numeric on a number field', { OrgId: 'abc' }, "'OrgId' is a number"],
  [
    'simple filter non-boolean on a boolean field',
    { isNotModifiable: 'yes' },
    "'isNotModifiable' is a boolean",
  ],
  [
    'isTrue on a string field',
    af([{ columnField: 'orderedBy', operatorValue: 'isTrue', value: '' }]),
    "operator isTrue needs a boolean field, 'orderedBy' is a string",
  ],
  [
    'isFalse on a number field',
    af([{ columnField: 'OrgId', operatorValue: 'isFalse', value: '' }]),
    'isFalse',
  ],
  [
    'greaterThan on a number with a non-numeric value',
    af([{ columnField: 'ProductId', operatorValue: 'greaterThan', value: 'abc' }]),
    '\'ProductId\' is a number, value "abc" is not',
  ],
  [
    'lessThan on a number with an empty value',
    af([{ columnField: 'id', operatorValue: 'lessThan', value: '' }]),
    "'id' is a number",
  ],
  [
    'equals on a number with a non-numeric value',
    af([{ columnField: 'id', operatorValue: 'equals', value: '12a' }]),
    "'id' is a number",
  ],
  [
    'greaterThan on a boolean field',
    af([{ columnField: 'isNotModifiable', operatorValue: 'greaterThan', value: 'false' }]),
    'cannot compare boolean',
  ],
  [
    'contains on a number field',
    af([{ columnField: 'ProductId', operatorValue: 'contains', value: '20' }]),
    "operator contains needs a string field, 'ProductId' is a number",
  ],
  [
    'startsWith on a boolean field',
    af([{ columnField: 'isNotModifiable', operatorValue: 'startsWith', value: 't' }]),
    'startsWith needs a string field',
  ],
  [
    'listContains with a non-number on a number field',
    af([{ columnField: 'ProductId', operatorValue: 'listContains', value: '201,two' }]),
    'holds a non-number',
  ],
  [
    'equals with a non-boolean on a boolean field',
    af([{ columnField: 'isNotModifiable', operatorValue: 'equals', value: 'TRUE' }]),
    'value must be "true" or "false"',
  ],
  ['a JSON array as body', [item], 'query body: expected a JSON object'],
  ['a JSON string as body', 'ProductId=201', 'query body: expected a JSON object'],
];

describe('rejections of query bodies (400)', () => {
  const sim = withSim({ scale: 0.1 });

  for (const [name, body, fragment] of queryRejections) {
    it(name, async () => {
      await expect400(sim(), 'POST', pathOf('queryOrderItem'), body, fragment);
    });
  }

  it('a field of another resource is unknown', async () => {
    await expect400(sim(), 'POST', pathOf('queryRole'), { OrgId: '1' }, "unknown field 'OrgId'");
    // HsVendor records carry fields the interface does not name; they cannot be filtered on.
    const vendor = sim().truth().HsVendor[0];
    expect(vendor?.cityState).toEqual(expect.any(String));
    await expect400(
      sim(),
      'POST',
      pathOf('queryHsVendor'),
      { cityState: String(vendor?.cityState) },
      'cityState',
    );
  });

  it('the same body minus the fault is accepted (the 400s above are about the fault only)', async () => {
    const res = await call(sim(), 'POST', pathOf('queryOrderItem'), {
      ...af([item]),
      sortBy: 'id',
      sortDirection: 'asc',
      pageSize: 100,
    });
    expect(res.status).toBe(200);
    const expected = sim()
      .truth()
      .OrderItem.filter((r) => r.ProductId === 201)
      .slice(0, 100);
    expect(res.body).toEqual(expected);
  });

  it('invalid JSON is a 400', async () => {
    const s = sim();
    for (const text of ['{', '{"page": 1,}', "{'page': 1}", 'undefined']) {
      const res = await rawRequest(`${s.url}${pathOf('queryRole')}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${WRITE_TOKEN}`, 'content-type': 'application/json' },
        body: text,
      });
      expect(res.status, text).toBe(400);
      expect(errorOf(JSON.parse(res.body.toString('utf8')))).toMatchObject({
        code: 'INVALID_REQUEST',
        message: 'body: not valid JSON',
      });
    }
  });

  it('a body without Content-Type, or with another type, is a 415; with a charset it is fine', async () => {
    const s = sim();
    const url = `${s.url}${pathOf('queryRole')}`;
    const auth = { authorization: `Bearer ${WRITE_TOKEN}` };
    const none = await rawRequest(url, { method: 'POST', headers: auth, body: '{"sortBy":"id"}' });
    expect(none.status).toBe(415);
    expect(errorOf(JSON.parse(none.body.toString('utf8'))).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp']) {
      const res = await rawRequest(url, {
        method: 'POST',
        headers: { ...auth, 'content-type': type },
        body: '{}',
      });
      expect(res.status, type).toBe(415);
    }
    // Writes too, and nothing is written.
    const inv = s.truth().Invoice.find((r) => Number(r.balance) > 5);
    const pay = await rawRequest(`${s.url}${pathOf('createPayment')}`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ InvoiceId: inv?.id, amountToPay: 1 }),
    });
    expect(pay.status).toBe(415);
    expect(s.tables.Invoice.get(String(inv?.id))?.balance).toBe(inv?.balance);
    const ok = await rawRequest(url, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json; charset=utf-8' },
      body: '{"sortBy":"id","sortDirection":"asc"}',
    });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body.toString('utf8'))).toEqual(s.truth().Role);
  });

  it('an empty query body means all defaults (docs/sandbox.md)', async () => {
    const s = sim();
    const res = await rawRequest(`${s.url}${pathOf('queryRole')}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${WRITE_TOKEN}` },
    });
    expect(res.status).toBe(200);
    const roles = JSON.parse(res.body.toString('utf8')) as unknown;
    expect(roles).toEqual((await call(s, 'POST', pathOf('queryRole'), {})).body);
    expect(sortedIds(asList(roles))).toEqual(sortedIds(s.truth().Role));
  });

  it('names of Object.prototype members are unknown fields too', async () => {
    const s = sim();
    const path = pathOf('queryRole');
    await expect400(s, 'POST', path, { toString: 'x' }, "simple filter: unknown field 'toString'");
    await expect400(s, 'POST', path, { constructor: 'x' }, "unknown field 'constructor'");
    await expect400(
      s,
      'POST',
      path,
      {
        advancedFilter: {
          linkOperator: 'AND',
          items: [{ columnField: 'constructor', operatorValue: 'equals', value: 'x' }],
        },
      },
      "columnField: unknown field 'constructor'",
    );
    await expect400(
      s,
      'POST',
      path,
      { return: ['hasOwnProperty'] },
      "return: unknown field 'hasOwnProperty'",
    );
    await expect400(s, 'POST', path, { sortBy: 'valueOf' }, "sortBy: unknown field 'valueOf'");
    await expect400(
      s,
      'GET',
      `${pathOf('listUser')}?fields=constructor`,
      undefined,
      "fields: unknown field 'constructor'",
    );
    await expect400(
      s,
      'POST',
      pathOf('createOrg'),
      { name: 'A', zip: '1', toString: 'x' },
      'toString: unknown field',
    );
    expect(s.stats.writesApplied).toEqual({});
  });

  it('a body over 16 MiB is a 413', async () => {
    const s = sim();
    const res = await rawRequest(`${s.url}${pathOf('queryRole')}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${WRITE_TOKEN}`, 'content-type': 'application/json' },
      body: Buffer.alloc(16 * 1024 * 1024 + 1024, 0x20),
    });
    expect(res.status).toBe(413);
    expect(errorOf(JSON.parse(res.body.toString('utf8')))).toMatchObject({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
    });
  });
});

describe('rejections of GET parameters and action bodies (400)', () => {
  const sim = withSim({ scale: 0.1 });

  it('GET with an unknown field in the selection, or a bad isAdditionalData', async () => {
    const s = sim();
    const staff = s.truth().Staff[0];
    await expect400(
      s,
      'GET',
      `${pathOf('getStaff', staff?.id)}?fields=salary,nope`,
      undefined,
      "fields: unknown field 'nope'",
    );
    await expect400(s, 'GET', `${pathOf('listUser')}?fields=emails`, undefined, "unknown field 'emails'");
    await expect400(
      s,
      'GET',
      `${pathOf('listOrgMonth')}?isAdditionalData=yes`,
      undefined,
      'isAdditionalData',
    );
    await expect400(
      s,
      'GET',
      `${pathOf('getStaff', staff?.id)}?isAdditionalData=1`,
      undefined,
      'isAdditionalData',
    );
  });

  it('action bodies: wrong types, unknown fields, missing required fields; nothing is written', async () => {
    const s = sim();
    const truth = s.truth();
    const org = truth.Org[0];
    const person = truth.Person[0];
    const applicant = truth.Applicant[0];
    const cases: [string, string, unknown, string][] = [
      [
        'POST',
        pathOf('createPerson'),
        { nameFirst: 5, nameLast: 'X', OrgId: org?.id },
        'nameFirst: expected a string',
      ],
      [
        'POST',
        pathOf('createPerson'),
        { nameFirst: 'A', nameLast: 'B', OrgId: 1.5 },
        'OrgId: expected a whole number',
      ],
      ['POST', pathOf('createPerson'), { nameFirst: 'A', nameLast: 'B' }, 'OrgId: required'],
      [
        'POST',
        pathOf('createPerson'),
        { nameFirst: 'A', nameLast: 'B', OrgId: org?.id, shoe: 9 },
        'shoe: unknown field',
      ],
      [
        'POST',
        pathOf('createPerson'),
        { nameFirst: 'A', nameLast: 'B', OrgId: 1 },
        'OrgId: org 1 does not exist',
      ],
      [
        'POST',
        pathOf('createPerson'),
        { nameFirst: 'A', nameLast: 'B', OrgId: org?.id, staff: [{ salary: 'lots' }] },
        'staff[0].salary: expected a number',
      ],
      [
        'POST',
        pathOf('createPerson'),
        { nameFirst: 'A', nameLast: 'B', OrgId: org?.id, user: {} },
        'user: expected an array',
      ],
      ['PATCH', pathOf('updatePerson', person?.id), { OrgId: 1002 }, 'OrgId: unknown field'],
      ['PATCH', pathOf('updatePerson', person?.id), { lat: '32.7' }, 'lat: expected a number'],
      ['PATCH', pathOf('updatePerson', person?.id), [], 'body: expected an object'],
      [
        'PATCH',
        pathOf('updateApplicant', applicant?.id),
        { info: [{ infoItem: [{ valueNumber: 'x' }] }] },
        'info[0].infoItem[0].valueNumber',
      ],
      [
        'PATCH',
        pathOf('updateApplicant', applicant?.id),
        { id_firstName: 'X' },
        'id_firstName: unknown field',
      ],
      [
        'POST',
        pathOf('createOrg'),
        { name: 'A', zip: '1', hsVendor: [{ doesDna: 'yes' }] },
        'hsVendor[0].doesDna: expected a boolean',
      ],
      [
        'POST',
        pathOf('createPayment'),
        { InvoiceId: 240001, amountToPay: 1 },
        'InvoiceId: expected a string',
      ],
      ['POST', pathOf('createPayment'), { InvoiceId: String(truth.Invoice[0]?.id) }, 'amountToPay: required'],
    ];
    for (const [method, path, body, fragment] of cases) await expect400(s, method, path, body, fragment);
    // Several problems are listed together.
    const msg = await expect400(s, 'POST', pathOf('createOrg'), { name: '', zip: 5, color: 'red' }, 'name');
    expect(msg.split('; ').sort()).toEqual([
      'color: unknown field',
      'name: must be at least 1 character(s)',
      'zip: expected a string',
    ]);
    expect(s.truth()).toEqual(truth);
    expect(s.stats.writesApplied).toEqual({});
  });
});
