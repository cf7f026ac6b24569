import { describe, expect, it } from 'vitest';
import { productKey, ReportRun } from '../../src/reports/core/run.js';

/**
 * The run's shared products (src/reports/core/run.ts): a typed key, its product made once per
 * run for equal inputs and handed to every reader typed, a kind named by one key only. The
 * reports' own keys (compliance's walk, the ageing's figures, the order facts, the org names)
 * are counted on real runs by test/reports/report-run.test.ts.
 */
interface Walk {
  orgs: number[];
}
const WALK = productKey<Walk>('test-walk');
const COUNT = productKey<number>('test-count');

describe('typed products of a run', () => {
  it('makes a product once for equal inputs, again for other inputs, and counts each build', async () => {
    const run = new ReportRun();
    let made = 0;
    const make = async () => {
      made++;
      return { orgs: [made] };
    };
    const a = await run.product(WALK, { year: 2026, orgs: [1] }, make);
    const b = await run.product(WALK, { year: 2026, orgs: [1] }, make);
    const c = await run.product(WALK, { year: 2025, orgs: [1] }, make);
    expect(b).toBe(a);
    expect(c).not.toBe(a);
    expect(made).toBe(2);
    expect(run.built.get('test-walk')).toBe(2);
    // Another kind does not share the first's product, even for equal inputs.
    expect(await run.product(COUNT, { year: 2026, orgs: [1] }, async () => 7)).toBe(7);
    run.counted(COUNT);
    expect(Object.fromEntries(run.built)).toEqual({ 'test-walk': 2, 'test-count': 2 });
    // Another run builds its own.
    expect(await new ReportRun().product(WALK, { year: 2026, orgs: [1] }, make)).not.toBe(a);
  });

  it('refuses a second key of the same kind, whose product could be another type', () => {
    const run = new ReportRun();
    void run.product(WALK, null, async () => ({ orgs: [] }));
    const other = productKey<string>('test-walk');
    expect(() => run.product(other, null, async () => 'x')).toThrow('two product keys named test-walk');
  });

  it('types the product by its key (tsc checks these lines)', async () => {
    const run = new ReportRun();
    const walk: Walk = await run.product(WALK, 1, async () => ({ orgs: [1, 2] }));
    // @ts-expect-error: the key of a Walk cannot make a number
    await run.product(WALK, 2, async () => 3);
    // @ts-expect-error: nor is its product read as another type
    const n: number = await run.product(WALK, 1, async () => ({ orgs: [] }));
    expect(walk.orgs).toEqual([1, 2]);
    expect(n).toBe(walk);
  });
});
