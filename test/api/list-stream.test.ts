import { describe, expect, it } from 'vitest';
import { ListStream, WHOLE_LIST_BYTES } from '../../src/api/list-stream.js';

/** A body poured into a ListStream in chunks of `chunk` bytes: its pages, shape and top, or its error. */
async function pour(body: string, options: { wholeBytes?: number; chunk?: number; key?: string } = {}) {
  const pages: Record<string, unknown>[][] = [];
  const sink = new ListStream(
    async (page) => {
      pages.push(page);
    },
    2,
    options.key,
    options.wholeBytes,
  );
  const bytes = Buffer.from(body);
  const size = options.chunk ?? 7;
  try {
    for (let i = 0; i < bytes.length; i += size) await sink.write(bytes.subarray(i, i + size));
    await sink.end();
    return { pages, shape: sink.shape, top: sink.top, count: sink.count };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

const records = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `r${i + 1}`, tags: [i] }));

/** A list body held and parsed whole up to WHOLE_LIST_BYTES, streamed above; read alike. */
describe('ListStream', () => {
  const bodies = {
    'a bare array': JSON.stringify(records(5)),
    'an envelope with a total': JSON.stringify({ total: 5, data: records(5) }),
    'another common key': JSON.stringify({ items: records(3), count: 3 }),
    'an empty bare array': '[]',
  };

  for (const [what, body] of Object.entries(bodies)) {
    it(`${what}: the same pages, shape and total whether held whole or streamed`, async () => {
      const whole = await pour(body);
      const streamed = await pour(body, { wholeBytes: 0 });
      // Over the bound part-way: the chunks held so far are handed to the stream parser.
      const crossing = await pour(body, { wholeBytes: 20 });
      expect(whole.error).toBeUndefined();
      expect(streamed).toEqual(whole);
      expect(crossing).toEqual(whole);
      const n = JSON.parse(body).length ?? Object.values(JSON.parse(body)).find(Array.isArray)?.length;
      expect(whole.count).toBe(n);
      expect(whole.pages?.every((p) => p.length <= 2)).toBe(true);
    });
  }

  it('a pinned key is read, whole or streamed', async () => {
    const body = JSON.stringify({ data: [{ id: 9 }], mine: records(3), total: 3 });
    const whole = await pour(body, { key: 'mine' });
    expect(whole.pages?.flat().map((r) => r.id)).toEqual([1, 2, 3]);
    expect(await pour(body, { key: 'mine', wholeBytes: 0 })).toEqual(whole);
  });

  it('an empty list in an envelope is an empty list when held whole', async () => {
    expect(await pour('{"data": [], "total": 0}')).toEqual({
      pages: [],
      shape: 'data',
      top: { total: 0 },
      count: 0,
    });
  });

  it('refuses what is no list of records, and an integer JSON would round, either way', async () => {
    for (const wholeBytes of [WHOLE_LIST_BYTES, 0]) {
      expect((await pour('[{"id":1},{"id":2', { wholeBytes })).error).toMatch(
        /^not a list response: unreadable JSON/,
      );
      expect((await pour('[{"id":1},3]', { wholeBytes })).error).toBe(
        'not a list response: list holds something other than records',
      );
      expect((await pour('[{"id":9007199254740993}]', { wholeBytes })).error).toBe(
        'an integer beyond 2^53 (9007199254740993) that JSON would round',
      );
      expect((await pour('  ', { wholeBytes })).error).toBe('not a list response: empty body');
      expect((await pour('"text"', { wholeBytes })).error).toBe(
        'not a list response: expected a JSON array or object',
      );
    }
  });

  it('an error member beside an empty list: named when held whole; streamed, the empty list is refused', async () => {
    const body = '{"rows": [], "error": "internal failure"}';
    expect((await pour(body)).error).toBe(
      'not a list response: the service answered with an error member ("internal failure")',
    );
    expect((await pour(body, { wholeBytes: 0 })).error).toBe(
      'not a list response: no array of records in the object',
    );
  });
});
