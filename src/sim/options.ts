import { z } from 'zod';

/**
 * Every switch of the sandbox. Each "Gap" of docs/service.md that a client could read in
 * more than one way has a switch here, so the client is tested against each reading.
 */
export const faultKinds = ['503', '500', 'drop', 'truncate', 'lostReply', 'hang'] as const;
export type FaultKind = (typeof faultKinds)[number];

/** The write operations a late or slow write fault can be switched on for, one by one. */
export const writeOperations = [
  'createPayment',
  'createPerson',
  'createOrg',
  'updatePerson',
  'updateApplicant',
  'deletePerson',
] as const;
export type WriteOperation = (typeof writeOperations)[number];

/**
 * Every setting of the sandbox: its type, bounds, default and description, written here once.
 * `ohs sim`'s flags are generated from it (src/commands/schema-flags.ts: `--kebab-case` of the
 * key, or `meta({ flag })`), so a new setting is one line here. Unknown keys are errors.
 */
export const simOptionsSchema = z
  .object({
    prefix: z
      .string()
      .regex(/^(\/[A-Za-z0-9._~-]+)*$/, 'expected "" or a path like /api')
      .default('')
      .describe("Path prefix of the service's operations (`{base_url}`), e.g. /api; empty: at the root."),
    token: z.string().min(1).default('sim-write-token').describe('Bearer token that may read and write.'),
    readonlyToken: z
      .string()
      .min(1)
      .default('sim-read-token')
      .describe('Bearer token that may only read: writes answer 403.'),

    seed: z.number().int().default(1).describe('Seed of the data set, faults and mutations.'),
    scale: z
      .number()
      .positive()
      .max(100)
      .default(1)
      .describe('Size of the data set (1: about 1,000 orgs and 30,000 order items).'),
    anchorDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD')
      .optional()
      .describe("The data set's today, YYYY-MM-DD: two years of history end here (absent: today, UTC)."),

    envelope: z
      .enum(['array', 'object'])
      .default('array')
      .describe('List responses: a bare JSON array, or an object holding the array and a total.'),
    envelopeKey: z.string().min(1).default('data').describe('Key of the records in object envelopes.'),
    totalKey: z.string().min(1).default('total').describe('Key of the total in object envelopes.'),
    pageCap: z
      .number()
      .int()
      .min(0)
      .default(250)
      .describe('Largest pageSize honoured, silently: larger requests are cut to it (0: no cap).'),
    defaultOrder: z
      .enum(['hash', 'id'])
      .default('hash')
      .describe('Order of query results when no sortBy is sent.'),
    fieldsParam: z
      .string()
      .min(1)
      .default('fields')
      .describe('Name of the GET field-selection query parameter.'),
    deleteAnswer: z
      .enum(['204', '200'])
      .default('204')
      .describe('Answer of a successful DELETE: 204 with no body, or 200 with the deleted record.'),
    lean: z
      .boolean()
      .default(false)
      .describe('Lean default responses: computed c_* fields only when asked for with `return`.'),
    stringCase: z
      .enum(['insensitive', 'sensitive'])
      .default('insensitive')
      .describe('Case handling of the string operators (contains, equals, startsWith, endsWith).'),
    listContains: z
      .enum(['any', 'whole'])
      .default('any')
      .describe(
        "How listContains reads a list. With any, the field equals one of the comma-separated items; with whole, the field's text contains the value as a whole (a list of ids then finds nothing).",
      ),
    strictBodies: z
      .boolean()
      .default(true)
      .describe('Reject unknown fields in action (non-query) bodies with 400.'),

    rateLimit: z
      .number()
      .min(0)
      .default(0)
      .describe('Requests per second allowed across all clients; over it: 429 with Retry-After (0: off).'),
    rateBurst: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe("Burst of the rate limit (token bucket); 0: one second's worth."),
    retryAfter: z.number().int().min(0).default(1).describe('Retry-After seconds sent with a 429.'),
    overloadStatus: z
      .enum(['429', '503'])
      .default('429')
      .describe(
        "Status answered beyond the rate limit: 429, or 503 (an overloaded service's burst of 503s).",
      ),
    rateHeaders: z
      .enum(['none', 'draft', 'combined', 'x'])
      .default('none')
      .describe(
        'RateLimit headers describing the rate limit on every answer: none; draft (RateLimit-Limit/-Remaining/-Reset and RateLimit-Policy); combined (RateLimit: "bucket";r=..;t=.. with RateLimit-Policy: "bucket";q=..;w=..); x (X-RateLimit-Limit/-Remaining/-Reset, no policy).',
      ),
    loadKnee: z
      .number()
      .min(0)
      .default(0)
      .describe('Service requests per second above which latency grows with load (0: off).'),
    loadLatencyMs: z
      .number()
      .int()
      .min(0)
      .default(100)
      .describe('Added per response for each knee of requests per second above the knee, ms.'),

    faultRate: z.number().min(0).max(1).default(0).meta({
      description: 'Share of service requests that fail with an injected fault, 0 to 1.',
      flag: 'faults',
    }),
    faultKinds: z
      .array(z.enum(faultKinds))
      .min(1)
      .default(['503', 'drop', 'truncate', 'lostReply'])
      .describe('Faults injected, comma-separated.'),
    faultOps: z
      .array(z.string())
      .default([])
      .describe(
        'Operations (by name, e.g. createOrg), comma-separated, the injected faults may hit; empty: every operation.',
      ),
    hangMs: z
      .number()
      .int()
      .min(0)
      .default(5000)
      .describe('Milliseconds a hang fault holds the request before dropping it.'),
    faultRetryAfter: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('Retry-After seconds sent with an injected 503 fault (0: none).'),
    lateWriteRate: z
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe(
        'Late write: share of the writes of the late write operations answered 504 at once and carried out later (a gateway that gave up on a backend that did not), 0 to 1.',
      ),
    lateWriteOps: z
      .array(z.enum(writeOperations))
      .min(1)
      .default(['createPayment'])
      .describe('Writes a late write may hit, comma-separated.'),
    lateWriteMinMs: z
      .number()
      .int()
      .min(0)
      .default(100)
      .describe('A late write is carried out this long after its 504, at least, ms.'),
    lateWriteMaxMs: z.number().int().min(0).default(800).describe('... and at most, ms.'),
    slowWriteRate: z
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe(
        "Slow write: share of the writes of the slow write operations carried out at once and answered only after the slow write's delay (set it above the client's timeout: the client gives up on a done write), 0 to 1.",
      ),
    slowWriteOps: z
      .array(z.enum(writeOperations))
      .min(1)
      .default(['createPayment'])
      .describe('Writes a slow write may hit, comma-separated.'),
    slowWriteMs: z
      .number()
      .int()
      .min(0)
      .default(35_000)
      .describe('How long a slow write holds its answer, ms (above the client timeout).'),
    missingOps: z
      .array(z.string())
      .default([])
      .describe(
        'Operations (by name, e.g. getStaff), comma-separated, answering 404 for every request, as a route a gateway does not serve: the service is there, that route is not.',
      ),
    foreignReads: z
      .array(z.enum(['getInvoice', 'getStaff', 'getApplicant']))
      .default([])
      .describe(
        "Reads by id (by operation name, e.g. getStaff), comma-separated, answering 200 for every id, held or not, with a record of another resource under the id asked (getStaff an invoice's fields, getInvoice and getApplicant a staff record's), as a service routing the read to the wrong table does.",
      ),
    trickleMs: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe(
        'Send each successful response body one byte every N ms (headers at once), so no idle timeout ever trips (0: off).',
      ),
    trickleBytes: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe(
        'Bytes sent at each trickleMs tick: 1, a trickle; more, a slow but steady link (4096 every 20 ms: 200 KB/s).',
      ),
    latencyMs: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('Added to every service response, ms (plus up to the jitter).'),
    latencyJitterMs: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('Random extra latency of every service response, up to, ms.'),
    workers: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe(
        'Service requests served at a time, as a server does: the rest wait in a FIFO queue, so latency grows with what is in flight (0: no queue, every request served at once).',
      ),
    serviceMs: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe(
        'Time a request holds its worker, ms, for an answer of up to 100 records; a bigger page holds it proportionally longer (250 records: 2.5x). Unlike latencyMs (network time) it queues behind --workers (0: none).',
      ),
    latencyCycleMs: z
      .array(z.number().int().min(0).max(60_000))
      .default([])
      .describe(
        "Latency of each answer on a connection in turn, ms, cycling (e.g. 3,44,8,47: a server writing an answer's head and body apart, met by delayed acknowledgements), added to latencyMs; no queue (empty: off).",
      ),
    cpuMs: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe(
        'CPU time a request takes, ms, for an answer of up to 100 records (a bigger page proportionally more), every request in progress sharing --cpus cores: a big page slows the small ones beside it, and latency grows with the work in progress (0: none).',
      ),
    cpus: z.number().int().min(1).default(1).describe('Cores the requests in progress share (--cpu-ms).'),

    mutateEveryMs: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('Live mutation of the data every N ms while the sandbox runs (0: off).'),
    mutateEveryRequests: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('Live mutation after every N service requests (0: off).'),
    mutationSize: z.number().int().min(1).default(5).describe('Changes of each kind per mutation step.'),

    recordRequests: z
      .boolean()
      .default(false)
      .describe(
        "Keep every service request (method, path, body) for the hook GET __sim/requests (benchmarks' replay).",
      ),

    quoteRefusals: z
      .boolean()
      .default(false)
      .describe(
        'Refuse every write with 400 quoting its request body and Authorization header in the message, as services that echo what they refuse do.',
      ),
    rewordErrors: z
      .boolean()
      .default(false)
      .describe(
        'Refuse every write with 400 quoting its values reworded (a date as July 4, 1961 or 04-JUL-61, an SSN as 987.65.4321, text in upper case), as services that paraphrase what they refuse do.',
      ),

    localeRefusals: z
      .boolean()
      .default(false)
      .describe(
        "Refuse every write with 422 quoting its values in other locales' spellings (a date as 4 juillet 1961, 4. Juli 1961 or 1961年7月4日, an SSN in fullwidth or Arabic-Indic digits or as HTML character references, text percent-encoded or in upper case), as services abroad do.",
      ),

    hostile: z
      .boolean()
      .default(false)
      .describe(
        'Hostile data (src/sim/hostile.ts): non-string SSNs and birth dates, formula and escape-sequence names, 1e309, huge errors.',
      ),

    hooks: z
      .boolean()
      .default(false)
      .describe(
        'Test hooks under {prefix}/__sim/ (truth, stats, mutate, config): unauthenticated, they hand out the write token and SSNs; refused with a non-loopback host. Off unless enabled.',
      ),
  })
  .strict();

export type SimOptionsInput = z.input<typeof simOptionsSchema>;
export type SimOptions = z.output<typeof simOptionsSchema>;

/** The switches that may be changed while the sandbox runs (hook `POST __sim/config`). */
export const liveOptionKeys = [
  'envelope',
  'envelopeKey',
  'totalKey',
  'pageCap',
  'defaultOrder',
  'fieldsParam',
  'deleteAnswer',
  'lean',
  'stringCase',
  'listContains',
  'strictBodies',
  'rateLimit',
  'rateBurst',
  'retryAfter',
  'overloadStatus',
  'rateHeaders',
  'loadKnee',
  'loadLatencyMs',
  'faultRate',
  'faultKinds',
  'faultOps',
  'hangMs',
  'faultRetryAfter',
  'lateWriteRate',
  'lateWriteOps',
  'lateWriteMinMs',
  'lateWriteMaxMs',
  'slowWriteRate',
  'slowWriteOps',
  'slowWriteMs',
  'latencyMs',
  'latencyJitterMs',
  'workers',
  'serviceMs',
  'latencyCycleMs',
  'cpuMs',
  'cpus',
  'trickleMs',
  'trickleBytes',
  'missingOps',
  'foreignReads',
  'quoteRefusals',
  'rewordErrors',
  'localeRefusals',
  'mutateEveryMs',
  'mutateEveryRequests',
  'mutationSize',
] as const satisfies readonly (keyof SimOptions)[];

/** Whether an injected fault may hit a request of this operation (`faultOps` empty: every one). */
export function faultMayHit(options: Pick<SimOptions, 'faultOps'>, operation: string): boolean {
  return options.faultOps.length === 0 || options.faultOps.includes(operation);
}
