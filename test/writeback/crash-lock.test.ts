import { describe, expect, it } from 'vitest';
import { listOutbox } from '../../src/writeback/index.js';
import { type CliResult, runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { procState, startUnreaped, type Unreaped } from '../helpers/unreaped.js';
import { expectPaidAtMostOnce, plannedPayments, withMirror } from '../helpers/writeback.js';

const env = { OHS_TOKEN: WRITE_TOKEN };

/**
 * Two `ohs apply` started at once under parents that never reap them; the one
 * holding the apply lock is SIGKILLed mid-way (a zombie, which kill(pid, 0) still finds); then
 * `ohs apply` at once takes over and every payment lands exactly once.
 */
describe.each(engines)('apply lock holder killed under a non-reaping parent (%s)', (engine) => {
  const sim = withSim({ scale: 0.2 });
  const target = withTargets(engine);

  it('two applies at once, the holder killed, then apply at once: every payment exactly once', async () => {
    const { dir, db, rows } = await plannedPayments(sim(), await target(), {
      n: 80,
      invoicesUsed: 40,
      firstCents: 1700,
      settleMs: 300,
      env,
    });
    const paymentsBefore = sim().tables.Payment.size;
    sim().configure({ latencyMs: 400 });
    const runs: Unreaped[] = [];
    try {
      runs.push(await startUnreaped(['apply'], { cwd: dir, env }));
      runs.push(await startUnreaped(['apply'], { cwd: dir, env }));
      // Waits (bounded) for the holder to be sending and the other one, refused, to have exited
      // (on a loaded machine its start-up can outlast the holder's first payments).
      const alive = () => runs.filter((r) => procState(r.pid) !== 'Z');
      for (
        let i = 0;
        i < 6000 && ((sim().stats.byOperation.createPayment ?? 0) < 20 || alive().length > 1);
        i++
      )
        await new Promise((r) => setTimeout(r, 20));
      const holders = alive();
      expect(holders).toHaveLength(1);
      const holder = holders[0] as Unreaped;
      await withMirror(db, async (m) => {
        const lock = await m.db
          .selectFrom('sync_lock')
          .select('pid')
          .where('name', '=', 'apply')
          .executeTakeFirst();
        expect(lock?.pid).toBe(holder.pid);
      });
      await holder.kill();
      sim().configure({ latencyMs: 0 });
      const sent = sim().stats.byOperation.createPayment ?? 0;
      expect(sent).toBeLessThan(80);
      expectPaidAtMostOnce(sim(), rows);

      // At once: not refused by the zombie's lock. On PostgreSQL the server frees the advisory lock
      // when it reads the dead connection's end, which a run may just precede: that run is retried.
      let last: CliResult | undefined;
      for (let run = 0; run < 4 && last?.code !== 0; run++) {
        last = await runOhs(['apply'], { cwd: dir, env, timeoutMs: 120_000 });
        if (engine === 'sqlite' || run > 0) expect(last.code, last.stderr).not.toBe(6);
        expectPaidAtMostOnce(sim(), rows);
      }
      expect(last?.code, last?.stdout + (last?.stderr ?? '')).toBe(0);
      const made = expectPaidAtMostOnce(sim(), rows);
      for (const [, amount] of rows) expect(made.get(Math.round(Number(amount) * 100))).toBe(1);
      expect(sim().tables.Payment.size - paymentsBefore).toBe(80);
      const items = await withMirror(db, (m) => listOutbox(m));
      expect(items.map((i) => i.state)).toEqual(Array(80).fill('applied'));
    } finally {
      for (const r of runs) await r.close();
    }
  }, 300_000);
});
