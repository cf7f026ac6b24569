import { describe, expect, it } from 'vitest';
import { DeadlineError, deadlineFailure, RequestDeadline } from '../../src/api/deadline.js';

/** An attempt's deadline follows the durations seen, within the floor and the ceiling. */
describe('RequestDeadline', () => {
  const options = { floorMs: 30_000, p99Multiple: 10, ceilingMs: 300_000 };

  it('is the floor until 20 answers were seen', () => {
    const d = new RequestDeadline(options);
    for (let i = 0; i < 19; i++) d.observe(20_000);
    expect(d.p99()).toBeUndefined();
    expect(d.ms).toBe(30_000);
    d.observe(20_000);
    expect(d.p99()).toBe(20_000);
    // 10 x 20 s = 200 s, under the ceiling.
    expect(d.ms).toBe(200_000);
  });

  it('follows the p99 of the last 256 answers, never below the floor nor above the ceiling', () => {
    const d = new RequestDeadline(options);
    for (let i = 0; i < 300; i++) d.observe(i % 50 === 0 ? 4_000 : 100);
    // 5 of the last 256 (i = 44..299) are 4 s: the p99 (the 254th of 256) is 4 s, 40 s as a deadline.
    expect(d.p99()).toBe(4_000);
    expect(d.ms).toBe(40_000);
    // 2 slow answers of 256 are under 1%: the p99 is the usual 0.1 s, the deadline the floor.
    const few = new RequestDeadline(options);
    for (let i = 0; i < 256; i++) few.observe(i < 2 ? 4_000 : 100);
    expect(few.p99()).toBe(100);
    for (let i = 0; i < 256; i++) d.observe(100);
    expect(d.ms).toBe(30_000);
    for (let i = 0; i < 256; i++) d.observe(60_000);
    expect(d.ms).toBe(300_000);
  });

  it('the p99 kept between answers (no sort when it cannot move) is the p99 of the window after every answer', () => {
    const d = new RequestDeadline(options);
    const seen: number[] = [];
    let x = 7;
    for (let i = 0; i < 3_000; i++) {
      x = (x * 48_271) % 2_147_483_647; // a seeded sequence, with phases of slow answers
      const ms = i % 700 < 100 ? 1_000 + (x % 5_000) : 50 + (x % 200);
      d.observe(ms);
      seen.push(ms);
      const window = seen.slice(-256).sort((a, b) => a - b);
      const want = window.length < 20 ? undefined : window[Math.ceil(window.length * 0.99) - 1];
      expect(d.p99()).toBe(want);
    }
  });

  it('a ceiling under the floor wins (api.requestDeadlineMs set low)', () => {
    expect(new RequestDeadline({ ...options, ceilingMs: 3_000 }).ms).toBe(3_000);
  });

  it('names the settings in its failure', () => {
    expect(deadlineFailure(new DeadlineError(30_000), 2)).toBe(
      'no complete answer within the request deadline (30000 ms) on 2 attempts: the service is too slow or trickling its answers (api.deadlineFloorMs, api.deadlineP99Multiple, api.requestDeadlineMs)',
    );
  });
});
