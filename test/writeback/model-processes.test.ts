import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { openMirror } from '../../src/mirror/index.js';
import { type Json, listOutbox, type OutboxItem, planFile, planSettings } from '../../src/writeback/index.js';
import { OHS_BIN } from '../helpers/cli.js';
import { defaults } from '../helpers/defaults.js';
import { describeEngines, withTargets } from '../helpers/engines.js';
import { call, WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { configure, workdir } from '../helpers/writeback.js';

/**
 * The write-back as a model, with real processes: two mirrors of one sandbox, each in
 * a folder of its own (one machine: one state directory), payments planned on one or both (the
 * same payment on both: the double payment the locks must prevent), and real `ohs apply`
 * processes started together on both mirrors, on one, or releasing a held item, some SIGKILLed
 * after a random delay (between any two of their steps), some with half the payment replies lost
 * by the sandbox; the service's balances raised or paid in part meanwhile. After each run, from
 * the sandbox's own ledger, both outboxes and every process's exit:
 * - no payment twice (the same payment planned on both mirrors too, unless a person released the
 *   second or a raise upstream hid the first: a balance is the only evidence there is);
 * - none above the balance read just before it left (beyond a cent);
 * - no conflict left silent: no item `applied` whose balance read back is not its own effect, and
 *   no process that left an item `conflict` exited 0.
 * Each run ends with both applies started together, unkilled. RUNS runs of up to STEPS commands
 * per engine, a fresh seed each time (printed with the counts of processes, kills and exits; a
 * failure prints its counterexample and seed: OHS_MODEL_SEED replays it).
 */
const RUNS = Number(process.env.OHS_MODEL_RUNS ?? 4);
const STEPS = 8;
const SEED = Number(process.env.OHS_MODEL_SEED ?? Date.now() % 2 ** 31);
const env = { OHS_TOKEN: WRITE_TOKEN };
const settings = { ...planSettings(defaults), confirm: async () => true, op: 'payment' as const };

interface Model {
  invoices: string[];
  raised: Set<string>;
  planned: { m: number; id: number; invoice: string; cents: number; pair: boolean }[];
  cents: number;
}
interface Real {
  dirs: [string, string];
  dbs: [string, string];
  /** Exit of every apply process: pid -> code (null: killed). */
  exits: Map<number, number | null>;
}
type Cmd = fc.AsyncCommand<Model, Real>;

describeEngines('the write-back with real processes as a model (%s)', { timeout: 900_000 }, (engine) => {
  const sim = withSim({ scale: 0.02 });
  const target = withTargets(engine);
  let file = 0;
  const stats = { runs: 0, commands: 0, processes: 0, killed: 0, exits: new Map<string, number>() };

  const hook = async (body: Record<string, unknown>) => {
    const r = await call(sim(), 'POST', '/__sim/invoice', body);
    if (r.status !== 200) throw new Error(`hook ${JSON.stringify(body)}: ${r.status}`);
    return r.body as Json;
  };

  /** `ohs apply ARGS` in folder `dir`, SIGKILLed after `killMs` when given; resolves with its exit. */
  async function apply(real: Real, dir: string, args: string[], killMs: number | null): Promise<void> {
    const child: ChildProcess = spawn(process.execPath, [OHS_BIN, 'apply', ...args], {
      cwd: dir,
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    const timer = killMs === null ? undefined : setTimeout(() => child.kill('SIGKILL'), killMs);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(timer);
    stats.processes++;
    if (code === null) stats.killed++;
    const key = code === null ? 'killed' : String(code);
    stats.exits.set(key, (stats.exits.get(key) ?? 0) + 1);
    real.exits.set(child.pid ?? -1, code);
  }

  async function plan(real: Real, m: number, invoice: string, cents: number): Promise<number | undefined> {
    const name = join(real.dirs[m] as string, `plan-${++file}.csv`);
    writeFileSync(name, `InvoiceId,amountToPay\n${invoice},${(cents / 100).toFixed(2)}\n`);
    const mirror = await openMirror(real.dbs[m] as string);
    try {
      return (await planFile(mirror, name, settings)).lines[0]?.outboxId;
    } catch (err) {
      // An amount above the balance the mirror knows is refused by the plan: nothing queued.
      if (err instanceof InputError && JSON.stringify(err.detail).includes('is above the balance'))
        return undefined;
      throw err;
    } finally {
      await mirror.close();
    }
  }

  class Plan implements Cmd {
    constructor(
      readonly m: number,
      readonly inv: number,
      readonly dollars: number,
      readonly both: boolean,
    ) {}
    check = () => true;
    async run(model: Model, real: Real) {
      const invoice = model.invoices[this.inv] as string;
      const cents = this.dollars * 100 + ++model.cents;
      for (const m of this.both ? [0, 1] : [this.m]) {
        const id = await plan(real, m, invoice, cents);
        if (id !== undefined) model.planned.push({ m, id, invoice, cents, pair: this.both });
      }
    }
    toString = () => `plan(${this.both ? 'both' : `m${this.m}`}, inv${this.inv}, ${this.dollars})`;
  }

  /** `ohs apply` on both mirrors at once (or on one), some killed, some with replies lost. */
  class Apply implements Cmd {
    constructor(
      readonly on: 'both' | 0 | 1,
      readonly lost: boolean,
      readonly kills: [number | null, number | null],
    ) {}
    check = () => true;
    async run(_model: Model, real: Real) {
      stats.commands++;
      if (this.lost)
        sim().configure({ faultRate: 0.5, faultKinds: ['lostReply'], faultOps: ['createPayment'] });
      try {
        const ms = this.on === 'both' ? [0, 1] : [this.on];
        await Promise.all(ms.map((m) => apply(real, real.dirs[m] as string, [], this.kills[m] ?? null)));
      } finally {
        if (this.lost) sim().configure({ faultRate: 0 });
      }
    }
    toString = () =>
      `apply(${this.on === 'both' ? 'both' : `m${this.on}`}${this.lost ? ', lost replies' : ''}${this.kills.some((k) => k !== null) ? `, kill ${this.kills.join('/')} ms` : ''})`;
  }

  /** `ohs apply --release ID` of the first held item of a mirror (a real process). */
  class Release implements Cmd {
    constructor(readonly m: number) {}
    check = () => true;
    async run(_model: Model, real: Real) {
      const mirror = await openMirror(real.dbs[this.m] as string);
      const [held] = await listOutbox(mirror, 'held').finally(() => mirror.close());
      if (held === undefined) return;
      stats.commands++;
      await apply(real, real.dirs[this.m] as string, ['--release', String(held.id)], null);
    }
    toString = () => `release(m${this.m})`;
  }

  class Upstream implements Cmd {
    constructor(
      readonly inv: number,
      readonly kind: 'fee' | 'part',
    ) {}
    check = () => true;
    async run(model: Model) {
      const id = model.invoices[this.inv] as string;
      if (this.kind === 'fee') {
        await hook({ action: 'lateFee', id, amount: 25 });
        model.raised.add(id);
      } else {
        const now = Number(sim().tables.Invoice.get(id)?.balance ?? 0);
        await hook({ action: 'balance', id, balance: Math.round((now - 30) * 100) / 100 });
      }
    }
    toString = () => `upstream(inv${this.inv}, ${this.kind})`;
  }

  const m = fc.integer({ min: 0, max: 1 });
  const inv = fc.integer({ min: 0, max: 2 });
  // One apply in three killed, at a delay that falls anywhere from its start-up to its last payment.
  const kill = fc.oneof(
    { arbitrary: fc.constant(null), weight: 2 },
    { arbitrary: fc.constantFrom(400, 1200, 2500), weight: 1 },
  );
  const plans = fc
    .tuple(m, inv, fc.constantFrom(5, 40, 150), fc.boolean())
    .map(([a, b, c, d]) => new Plan(a, b, c, d));
  const applies = fc
    .tuple(
      fc.constantFrom('both' as const, 'both' as const, 0 as const, 1 as const),
      fc.boolean(),
      kill,
      kill,
    )
    .map(([on, lost, k0, k1]) => new Apply(on, lost, [k0, k1]));
  const commands = fc.commands(
    [
      plans,
      plans,
      applies,
      applies,
      m.map((a) => new Release(a)),
      fc.tuple(inv, fc.constantFrom('fee' as const, 'part' as const)).map(([a, b]) => new Upstream(a, b)),
    ],
    { size: 'max', maxCommands: STEPS },
  );

  async function check(model: Model, real: Real): Promise<void> {
    const made = new Map<string, number>();
    for (const p of sim().truth().Payment) {
      const key = `${String(p.InvoiceId)}:${Math.round(Number(p.amountToPay) * 100)}`;
      made.set(key, (made.get(key) ?? 0) + 1);
    }
    const items: OutboxItem[][] = [];
    for (const db of real.dbs) {
      const mirror = await openMirror(db);
      items.push(await listOutbox(mirror).finally(() => mirror.close()));
    }
    for (const p of model.planned) {
      const times = made.get(`${p.invoice}:${p.cents}`) ?? 0;
      const released = model.planned.some(
        (q) =>
          q.pair &&
          q.invoice === p.invoice &&
          q.cents === p.cents &&
          items[q.m]?.find((i) => i.id === q.id)?.released_at != null,
      );
      const bound = p.pair && (model.raised.has(p.invoice) || released) ? 2 : 1;
      expect(times, `payment ${p.cents / 100} on ${p.invoice}: no payment twice`).toBeLessThanOrEqual(bound);
    }
    for (const item of items.flat()) {
      if (item.op !== 'payment') continue;
      const amount = Number((JSON.parse(item.body) as Json).amountToPay);
      if (item.claimed_at !== null && item.balance_before !== null)
        expect(amount, `#${item.id} within the balance read when it left`).toBeLessThanOrEqual(
          item.balance_before + 0.005,
        );
      const verify = item.verify === null ? {} : (JSON.parse(item.verify) as Json);
      const c = verify.check as { expected?: number | null; balanceAfter?: number | null } | undefined;
      if (item.state === 'applied' && item.resolution !== 'manual-applied' && c !== undefined)
        expect(
          Math.abs(Number(c.balanceAfter) - Number(c.expected)),
          `#${item.id} applied: its balance read back is its own effect`,
        ).toBeLessThan(0.005);
      if (item.state === 'conflict') {
        const pid = Number(item.claimed_by?.split('@')[0]);
        expect(real.exits.get(pid), `#${item.id} conflict: its apply (pid ${pid}) did not exit 0`).not.toBe(
          0,
        );
      }
    }
  }

  it(`${RUNS} runs of up to ${STEPS} steps with real ohs apply processes: no payment twice, none above the balance read, no conflict silent`, async () => {
    console.log(`model-processes (${engine}): seed ${SEED}`);
    const a = workdir(sim().url, await target());
    const b = workdir(sim().url, await target());
    for (const w of [a, b]) configure(w.dir, { writeback: { settleMs: 200 } });
    const real: Real = { dirs: [a.dir, b.dir], dbs: [a.db, b.db], exits: new Map() };
    const org = sim().truth().Invoice[0]?.OrgId;
    const started = Date.now();
    // A read, a payment and its read back take 450 ms: two applies started together overlap.
    sim().configure({ latencyMs: 150 });
    try {
      await fc.assert(
        fc.asyncProperty(commands, async (cmds) => {
          stats.runs++;
          // Three fresh invoices, known to both mirrors as a sync would write them; outboxes empty.
          const invoices: Json[] = [];
          for (const amount of [300, 300, 120])
            invoices.push(await hook({ action: 'create', OrgId: org, amount }));
          for (const db of real.dbs) {
            const mirror = await openMirror(db);
            try {
              await mirror.db.deleteFrom('outbox').execute();
              await mirror.write((w) => w.upsert('Invoice', invoices, { now: new Date().toISOString() }));
            } finally {
              await mirror.close();
            }
          }
          const model: Model = {
            invoices: invoices.map((i) => String(i.id)),
            raised: new Set(),
            planned: [],
            cents: 0,
          };
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          // Every run ends with both started together, unkilled, replies kept: what is left goes.
          await new Apply('both', false, [null, null]).run(model, real);
          await check(model, real);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    } finally {
      sim().configure({ faultRate: 0, latencyMs: 0 });
      console.log(
        `model-processes (${engine}): seed ${SEED}, ${stats.runs} runs, ${stats.commands} apply commands, ${stats.processes} processes (${stats.killed} killed), exits ${JSON.stringify(Object.fromEntries(stats.exits))}, ${Math.round((Date.now() - started) / 1000)} s`,
      );
    }
    // Not vacuous: processes ran, and some were killed between their steps.
    expect(stats.processes).toBeGreaterThan(0);
  });
});
