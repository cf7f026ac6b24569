import PQueue from 'p-queue';
import { describe, expect, it } from 'vitest';
import { DEADLINE_ATTEMPTS, DeadlineError } from '../../src/api/deadline.js';
import * as E from '../../src/api/errors.js';
import { ApiMetrics, ConcurrencyLimit, RateLimiter } from '../../src/api/index.js';
import { NotAListError, SinkConsumerError } from '../../src/api/list-stream.js';
import { Circuit, classifyLayer } from '../../src/api/transport/classify.js';
import { metricsLayer } from '../../src/api/transport/metrics.js';
import { rateLayer } from '../../src/api/transport/rate.js';
import { RETRY_TABLE, retryLayer } from '../../src/api/transport/retry.js';
import type { Answer, Call, Reply, SendOptions } from '../../src/api/transport/types.js';
import { apiDefaults } from '../helpers/client.js';
import { SimClock } from '../helpers/clock.js';
import { seededRng } from '../helpers/seed.js';

/**
 * The transport's layers composed around a plain function standing for the attempt (the
 * innermost layer's place): each step of a script is the answer the attempt gets, or the error
 * it throws. No HTTP: what is asserted is what the layers decide from those inputs.
 */
type Step = Partial<Answer> | Error | { code: string };
const BASE = 'http://127.0.0.1:9';

function answer(step: Partial<Answer>): Answer {
  return {
    status: 200,
    headers: {},
    text: '',
    ms: 5,
    retryAfterMs: undefined,
    throttling: false,
    pour: undefined,
    ...step,
  };
}

/**
 * The whole stack: retry ∘ metrics ∘ rate ∘ classify ∘ (the script), with the config's defaults,
 * on a simulated clock (a 429's cut and hold pace the next attempt on it, at no cost in time).
 */
function stack(script: Step[], options: { maxRetries?: number; maxRateLimitRetries?: number } = {}) {
  const { rng, seed } = seededRng(25);
  const clock = new SimClock();
  const calls: Call[] = [];
  const slept: number[] = [];
  const metrics = new ApiMetrics();
  const circuit = new Circuit(BASE);
  const inFlight = new ConcurrencyLimit({ initial: 4, min: 4, max: 4 });
  const queue = new PQueue({ concurrency: inFlight.limit });
  const limiter = new RateLimiter({
    requestsPerSecond: apiDefaults.requestsPerSecond,
    baseUrl: BASE,
    token: 't',
    maxHoldMs: apiDefaults.retryMaxMs,
    clock,
  });
  const inner = async (call: Call): Promise<Answer> => {
    calls.push({ ...call });
    const step = script.shift();
    if (step === undefined) throw new Error('the script ran out');
    if (step instanceof Error) throw step;
    if ('code' in step && typeof step.code === 'string') throw Object.assign(new Error(step.code), step);
    return answer(step as Partial<Answer>);
  };
  const rated = rateLayer(classifyLayer(inner, circuit), {
    limiter,
    inFlight,
    queue,
    circuit,
    clock,
  });
  const sendNow = retryLayer(metricsLayer(rated, metrics, undefined), {
    maxRetries: options.maxRetries ?? apiDefaults.maxRetries,
    maxRateLimitRetries: options.maxRateLimitRetries ?? apiDefaults.maxRateLimitRetries,
    retryBaseMs: apiDefaults.retryBaseMs,
    retryMaxMs: apiDefaults.retryMaxMs,
    metrics,
    circuit,
    sleep: async (ms) => {
      slept.push(ms);
    },
    random: () => rng.next(),
  });
  const send = (req: SendOptions) => clock.run(sendNow(req));
  return { send, calls, slept, metrics, limiter, circuit, seed, clock };
}

const get: SendOptions = { method: 'GET', path: '/v2/staff/7', idempotent: true };
const create: SendOptions = { method: 'POST', path: '/v2/payment', body: { amount: 1 }, idempotent: false };
const remove: SendOptions = { method: 'DELETE', path: '/v2/person/9', idempotent: true, goneMeansDone: true };

const failed = (p: Promise<Reply>) =>
  p.then(
    () => undefined,
    (err: unknown) => err,
  );

describe('the retry table, composed around a plain attempt', () => {
  it('retries a 503 of an idempotent request and answers the body of the next attempt', async () => {
    const s = stack([{ status: 503, text: 'busy' }, { status: 502 }, { status: 200, text: '{"id":7}' }]);
    expect(await s.send(get)).toEqual({ status: 200, body: { id: 7 } });
    expect(s.calls.map((c) => c.attempt)).toEqual([1, 2, 3]);
    expect(s.metrics.retries).toEqual({ server_error: 2 });
    expect(s.metrics.responses).toEqual({ '503': 1, '502': 1, '200': 1 });
    // Equal jitter: half of 250 ms, then of 500 ms, fixed; the other half random.
    expect(s.slept[0]).toBeGreaterThanOrEqual(125);
    expect(s.slept[0]).toBeLessThan(250);
    expect(s.slept[1]).toBeGreaterThanOrEqual(250);
    expect(s.slept[1]).toBeLessThan(500);
  });

  it("honours each request's own Retry-After: a 5xx waits the longer of it and the backoff, capped at retryMaxMs", async () => {
    const s = stack([
      { status: 503, retryAfterMs: 4_000 },
      { status: 503, retryAfterMs: 10 },
      { status: 500, retryAfterMs: 600_000 },
      { status: 200 },
    ]);
    expect((await s.send(get)).status).toBe(200);
    expect(s.slept[0]).toBe(4_000);
    expect(s.slept[1]).toBeGreaterThanOrEqual(250); // the backoff, longer than its 10 ms
    expect(s.slept[1]).toBeLessThan(500);
    expect(s.slept[2]).toBe(apiDefaults.retryMaxMs);
  });

  it('a 429 waits in the limiter (it holds the whole client), a throttling 4xx its own Retry-After; neither spends the fault budget', async () => {
    const s = stack(
      [
        { status: 429, retryAfterMs: undefined },
        { status: 400, text: '{"error":"ThrottlingException"}', throttling: true, retryAfterMs: 700 },
        { status: 500 },
        { status: 429 },
        { status: 200 },
      ],
      { maxRetries: 1 },
    );
    expect((await s.send(get)).status).toBe(200);
    expect(s.slept).toHaveLength(2);
    expect(s.slept[0]).toBe(700);
    expect(s.metrics.retries).toEqual({ rate_limited: 3, server_error: 1 });
    expect(s.metrics.rateLimitPauses).toBe(3);
  });

  it("throws the reason's error once its budget is spent, naming the attempts", async () => {
    const faults = stack([{ status: 500 }, { status: 500 }, { status: 500 }], { maxRetries: 2 });
    const server = await failed(faults.send(get));
    expect(server).toBeInstanceOf(E.ServerError);
    expect((server as E.ServerError).attempts).toBe(3);

    const throttles = stack([{ status: 429 }, { status: 429 }, { status: 429 }], {
      maxRateLimitRetries: 2,
    });
    const limited = await failed(throttles.send(get));
    expect(limited).toBeInstanceOf(E.RateLimitedError);
    expect((limited as E.RateLimitedError).attempts).toBe(3);

    const drops = stack([{ code: 'ECONNRESET' }, { code: 'ECONNRESET' }], { maxRetries: 1 });
    const dropped = await failed(drops.send(get));
    expect(dropped).toBeInstanceOf(E.NetworkError);
    expect((dropped as Error).message).toContain('network (ECONNRESET) on each of 2 attempts');
    expect(drops.limiter.snapshot().faults).toBe(2);
  });

  it('a request that outlives its deadline is tried DEADLINE_ATTEMPTS times, whatever maxRetries allows', async () => {
    const s = stack([new DeadlineError(30_000), new DeadlineError(30_000), { status: 200 }]);
    const err = await failed(s.send(get));
    expect(err).toBeInstanceOf(E.NetworkError);
    expect((err as Error).message).toMatch(/request deadline \(30000 ms\) on 2 attempts/);
    expect(s.calls).toHaveLength(DEADLINE_ATTEMPTS);
    expect(s.metrics.retries).toEqual({ timeout: 1 });
  });

  it('never resends a create that may have been carried out: 5xx, a drop, a timeout, an unreadable success', async () => {
    const mayHaveRun: Step[] = [
      { status: 502 },
      { code: 'ECONNRESET' },
      { code: 'UND_ERR_HEADERS_TIMEOUT' },
      new DeadlineError(1_000),
      { code: 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' },
      { status: 201, text: '{"id":' },
    ];
    for (const step of mayHaveRun) {
      const s = stack([step, { status: 201, text: '{"id":1}' }]);
      const err = await failed(s.send(create));
      expect(err, JSON.stringify(step)).toBeInstanceOf(E.OutcomeUnknownError);
      expect(s.calls, JSON.stringify(step)).toHaveLength(1);
    }
  });

  it('resends a create that never left (connection refused once the service was reached) or was throttled', async () => {
    const s = stack([
      { status: 200 },
      { code: 'ECONNREFUSED' },
      { status: 429 },
      { status: 201, text: '{"id":1}' },
    ]);
    await s.send(get); // the service has answered: a refused connection is now worth retrying
    expect(await s.send(create)).toEqual({ status: 201, body: { id: 1 } });
    expect(s.calls.slice(1).map((c) => c.payload)).toEqual(Array(3).fill('{"amount":1}'));
  });

  it('a DELETE whose earlier attempt may have run takes a 404 as done; a first 404 is an error', async () => {
    const s = stack([{ code: 'ECONNRESET' }, { status: 404 }]);
    expect(await s.send(remove)).toEqual({ status: 404, body: undefined });
    const first = stack([{ status: 404, text: '{"message":"no person 9"}' }]);
    expect(await failed(first.send(remove))).toBeInstanceOf(E.NotFoundError);
    // A 5xx may have run too; an unreadable success did nothing the 404 would confirm.
    expect(await stack([{ status: 500 }, { status: 404 }]).send(remove)).toEqual({
      status: 404,
      body: undefined,
    });
    expect(
      await failed(stack([{ status: 200, text: '<html>' }, { status: 404 }]).send(remove)),
    ).toBeInstanceOf(E.NotFoundError);
  });

  it("throws a client error at once, the service's text withheld but for its code and the fields it names", async () => {
    const s = stack([
      { status: 422, text: '{"error":{"code":"E_AMOUNT","message":"amount must be positive"}}' },
    ]);
    const err = await failed(s.send(create));
    expect(err).toBeInstanceOf(E.InvalidRequestError);
    expect((err as Error).message).not.toContain('must be positive');
    expect((err as Error).message).toMatch(
      /^refused: status 422, service code E_AMOUNT, names .*; its text withheld: /,
    );
    expect((err as E.InvalidRequestError).serviceText).toContain('amount must be positive');
    expect(JSON.stringify(err)).not.toContain('must be positive');
    expect(await failed(stack([{ status: 403 }]).send(get))).toBeInstanceOf(E.ForbiddenError);
    const huge = await failed(stack([{ status: 200, text: '{"id":9007199254740993}' }]).send(get));
    expect(huge).toBeInstanceOf(E.ProtocolError);
    expect(s.calls).toHaveLength(1);
  });

  it('a 401 stops the client: later requests fail with it and never reach the attempt', async () => {
    const s = stack([{ status: 401 }]);
    const err = await failed(s.send(get));
    expect(err).toBeInstanceOf(E.UnauthorizedError);
    expect(await failed(s.send(get))).toBe(err);
    expect(s.calls).toHaveLength(1);
  });

  it('no service at the base URL before any answer: one E.UnreachableError for this and every later request', async () => {
    const s = stack([{ code: 'ECONNREFUSED' }]);
    const err = await failed(s.send(get));
    expect(err).toBeInstanceOf(E.UnreachableError);
    expect((err as Error).message).toContain('no service at http://127.0.0.1:9 (connection refused)');
    expect(await failed(s.send(create))).toBe(err);
    expect(s.calls).toHaveLength(1);
    expect(s.limiter.snapshot().faults).toBe(0);
  });

  it('a cancelled request ends with its reason, before or during an attempt', async () => {
    const s = stack([]);
    const before = AbortSignal.abort(new Error('stop'));
    expect(((await failed(s.send({ ...get, signal: before }))) as Error).message).toBe('stop');
    const during = new AbortController();
    const t = stack([Object.assign(new Error('aborted'), { code: 'UND_ERR_ABORTED' })]);
    const sending = failed(t.send({ ...get, signal: during.signal }));
    during.abort(new Error('sibling failed'));
    expect(((await sending) as Error).message).toBe('sibling failed');
    expect(s.calls).toHaveLength(0);
  });

  it('counts requests and retries for the unit of work that sent them', async () => {
    const s = stack([{ status: 503 }, { code: 'ECONNRESET' }, { status: 200 }]);
    const counter = { requests: 0, retries: 0 };
    await s.send({ ...get, counter });
    expect(counter).toEqual({ requests: 3, retries: 2 });
  });

  it('every reason has a rule, and only faults and throttles are ever retried', () => {
    const retried = Object.entries(RETRY_TABLE)
      .filter(([, r]) => r.idempotent === 'retry')
      .map(([reason]) => reason)
      .sort();
    expect(retried).toEqual(
      [
        'deadline',
        'network',
        'not_sent',
        'server_error',
        'throttled',
        'throttling_answer',
        'timeout',
        'truncated',
        'unreadable',
      ].sort(),
    );
    for (const [reason, rule] of Object.entries(RETRY_TABLE)) {
      if (rule.idempotent === 'retry') expect(rule.budgets.length, reason).toBeGreaterThan(0);
      // A request not safe to repeat is resent only when nothing can have been done.
      if (rule.other === 'retry') expect(rule.mayHaveApplied, reason).toBe(false);
    }
  });
});

describe('the classify layer', () => {
  const call = (req: SendOptions = get): Call => ({ req, payload: undefined, attempt: 1, sentAt: 0 });
  const classify = async (step: Step, circuit = new Circuit(BASE)) => {
    const layer = classifyLayer(async () => {
      if (step instanceof Error) throw step;
      if ('code' in step && typeof step.code === 'string') throw Object.assign(new Error('x'), step);
      return answer(step as Partial<Answer>);
    }, circuit);
    return layer(call());
  };

  it('names each answer by its head', async () => {
    const reasons = await Promise.all(
      [
        { status: 429 },
        { status: 400, throttling: true },
        { status: 503, throttling: true },
        { status: 500 },
        { status: 401 },
        { status: 403 },
        { status: 404 },
        { status: 409 },
        { status: 204 },
      ].map(async (a) => (await classify(a)).reason),
    );
    expect(reasons).toEqual([
      'throttled',
      'throttling_answer',
      'server_error',
      'server_error',
      'unauthorized',
      'forbidden',
      'not_found',
      'rejected',
      'ok',
    ]);
  });

  it("names each fault by its error code (or its cause's), once the service has answered", async () => {
    const circuit = new Circuit(BASE);
    circuit.reached = true;
    const faults = [
      { code: 'ECONNREFUSED' },
      { code: 'ECONNRESET' },
      { code: 'UND_ERR_BODY_TIMEOUT' },
      new DeadlineError(5),
      { code: 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' },
      Object.assign(new Error('fetch failed'), { cause: { code: 'UND_ERR_SOCKET' } }),
    ];
    const reasons = [];
    for (const f of faults) reasons.push((await classify(f, circuit)).reason);
    expect(reasons).toEqual(['not_sent', 'network', 'timeout', 'deadline', 'truncated', 'network']);
  });

  it("throws on what no retry can help: a sink consumer's own error, a list that is none, a body over its bound", async () => {
    const own = new Error('disk full');
    await expect(classify(new SinkConsumerError(own))).rejects.toBe(own);
    await expect(classify(new NotAListError('not a list'))).rejects.toBeInstanceOf(E.ProtocolError);
    const tooLarge = new E.ProtocolError('too large', { method: 'GET', path: '/' });
    await expect(classify(tooLarge)).rejects.toBe(tooLarge);
  });

  it('a streamed body dropped half-way is a fault of the same attempt', async () => {
    const layer = classifyLayer(
      async () =>
        answer({ pour: () => Promise.reject(Object.assign(new Error('x'), { code: 'ECONNRESET' })) }),
      new Circuit(BASE),
    );
    const head = await layer(call());
    expect(head.reason).toBe('ok');
    expect((await head.rest?.())?.reason).toBe('network');
  });
});

describe('the rate layer', () => {
  const parts = (circuit = new Circuit(BASE)) => {
    const clock = new SimClock();
    const inFlight = new ConcurrencyLimit({ initial: 2, min: 2, max: 2 });
    const limiter = new RateLimiter({
      requestsPerSecond: 'auto',
      baseUrl: BASE,
      token: 't',
      maxHoldMs: 2_000,
      clock,
    });
    const queue = new PQueue({ concurrency: inFlight.limit });
    return { circuit, inFlight, limiter, queue, clock };
  };
  const call = (): Call => ({ req: get, payload: undefined, attempt: 1, sentAt: 0 });
  const through = (p: ReturnType<typeof parts>, step: Step, sent: Call[] = []) =>
    p.clock.run(
      rateLayer(
        classifyLayer(async (c) => {
          sent.push(c);
          if ('code' in step && typeof step.code === 'string') throw Object.assign(new Error('x'), step);
          return answer(step as Partial<Answer>);
        }, p.circuit),
        p,
      )(call()),
    );

  it('shows a 429 to the limiter as a throttle (a cut, and its Retry-After holds the client); a 503 or a drop as a fault', async () => {
    const throttled = parts();
    await through(throttled, { status: 429, retryAfterMs: 1_000 });
    expect(throttled.limiter.snapshot()).toMatchObject({ cuts: { throttled: 1 }, holds: 1, faults: 0 });
    // The next attempt waits out the hold on the clock.
    const held = throttled.clock.now();
    const sent: Call[] = [];
    await through(throttled, { status: 200 }, sent);
    expect(sent[0]?.sentAt).toBeGreaterThanOrEqual(held + 1_000);
    const faulty = parts();
    await through(faulty, { status: 503 });
    const dropped = await through(faulty, { code: 'ECONNRESET' });
    expect(faulty.limiter.snapshot()).toMatchObject({ cuts: { throttled: 0 }, holds: 0, faults: 2 });
    expect(dropped.reason).toBe('network');
  });

  it('stamps when the attempt left, and sends nothing once the client has stopped', async () => {
    const p = parts();
    const sent: Call[] = [];
    await through(p, { status: 200 }, sent);
    expect(sent[0]?.sentAt).toBe(p.clock.now());
    p.circuit.fatal = new E.UnauthorizedError({ method: 'GET', path: '/' });
    await expect(through(p, { status: 200 }, sent)).rejects.toBe(p.circuit.fatal);
    expect(sent).toHaveLength(1);
  });
});

/**
 * A server that queues, on the simulated clock: `workers` requests served at a time, each for
 * `serviceMs`; the others wait their turn, so latency grows with what is in flight.
 */
class QueueingServer {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];
  peakInFlight = 0;
  private inFlight = 0;

  constructor(
    private readonly clock: SimClock,
    private readonly workers: number,
    private readonly serviceMs: number,
  ) {}

  async serve(): Promise<number> {
    const start = this.clock.now();
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    if (this.busy < this.workers) this.busy++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    await this.clock.sleep(this.serviceMs);
    // The worker passes to the next in line, or goes idle.
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.busy--;
    this.inFlight--;
    return this.clock.now() - start;
  }
}

describe('one signal, one controller (the rate layer against a queueing server, simulated clock)', () => {
  it('latency growing with load lowers the concurrency limit and never cuts the rate', async () => {
    const clock = new SimClock();
    const server = new QueueingServer(clock, 4, 5);
    const circuit = new Circuit(BASE);
    const inFlight = new ConcurrencyLimit({ initial: 8, min: 2, max: 48 });
    const queue = new PQueue({ concurrency: inFlight.limit });
    const limiter = new RateLimiter({
      requestsPerSecond: 'auto',
      baseUrl: BASE,
      token: 't',
      maxHoldMs: 2_000,
      clock,
    });
    const send = rateLayer(
      classifyLayer(async () => answer({ ms: await server.serve() }), circuit),
      { limiter, inFlight, queue, circuit, clock },
    );
    let next = 0;
    const limits: number[] = [];
    const started = clock.now();
    const caller = async () => {
      while (next++ < 1500) {
        await send({ req: get, payload: undefined, attempt: 1, sentAt: 0 });
        limits.push(inFlight.limit);
      }
    };
    await clock.run(Promise.all(Array.from({ length: 64 }, caller)));
    // Slow start overshoots; then the limit comes down near the server's four workers and stays
    // there (Gradient2's equilibrium: the queue its tolerance allows), and the server stays busy.
    const settled = limits.slice(-500);
    expect(Math.min(...settled), JSON.stringify(inFlight.snapshot())).toBeGreaterThanOrEqual(4);
    expect(Math.max(...settled), JSON.stringify(inFlight.snapshot())).toBeLessThanOrEqual(16);
    expect(1500 / ((clock.now() - started) / 1000)).toBeGreaterThan(0.9 * (4 / 0.005));
    // Latency was all it saw: the rate was never cut.
    expect(limiter.snapshot()).toMatchObject({
      rate: null,
      cuts: { throttled: 0, unavailable: 0 },
      holds: 0,
    });
  });
});
