import { z } from 'zod';

/**
 * Every switch of the sandbox. Each "Gap" of service-interface.md that a client could read in
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

export const simOptionsSchema = z
  .object({
    /** Interface `{base_url}` path prefix, e.g. `/api`. Empty: operations at the root. */
    prefix: z
      .string()
      .regex(/^(\/[A-Za-z0-9._~-]+)*$/, 'expected "" or a path like /api')
      .default(''),
    /** Bearer token allowed to read and write. */
    token: z.string().min(1).default('sim-write-token'),
    /** Bearer token allowed to read only: writes answer 403. */
    readonlyToken: z.string().min(1).default('sim-read-token'),

    /** Seed of the data set, faults and mutations. */
    seed: z.number().int().default(1),
    /** Multiplies the data set (1: about 1,000 orgs and 30,000 order items). */
    scale: z.number().positive().max(100).default(1),
    /** The data set's "today" (YYYY-MM-DD); two years of history end here. Default: today, UTC. */
    anchorDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD')
      .optional(),

    /** List responses: a bare JSON array, or an object holding the array and a total. */
    envelope: z.enum(['array', 'object']).default('array'),
    envelopeKey: z.string().min(1).default('data'),
    totalKey: z.string().min(1).default('total'),
    /** Largest pageSize honoured; larger requests are silently cut to it. 0: no cap. */
    pageCap: z.number().int().min(0).default(250),
    /** Order of query results when no sortBy is sent. */
    defaultOrder: z.enum(['hash', 'id']).default('hash'),
    /** Name of the GET field-selection query parameter. */
    fieldsParam: z.string().min(1).default('fields'),
    /** Answer of a successful DELETE: 204 with no body, or 200 with the deleted record. */
    deleteAnswer: z.enum(['204', '200']).default('204'),
    /** Lean default responses: computed `c_*` fields only when asked for with `return`. */
    lean: z.boolean().default(false),
    /** Case handling of the string operators (contains, equals, startsWith, endsWith). */
    stringCase: z.enum(['insensitive', 'sensitive']).default('insensitive'),
    /**
     * Reading of `listContains`: 'any' = the field equals one of the comma-separated items;
     * 'whole' = the field's text contains the value as a whole (a list of ids then finds nothing).
     */
    listContains: z.enum(['any', 'whole']).default('any'),
    /** Whether unknown fields in action (non-query) bodies are rejected with 400. */
    strictBodies: z.boolean().default(true),

    /** Requests per second allowed across all clients; over it: 429 with Retry-After. 0: off. */
    rateLimit: z.number().min(0).default(0),
    /** Burst size of the rate limit (token bucket); default: one second's worth. */
    rateBurst: z.number().int().min(0).default(0),
    /** Retry-After seconds sent with a 429. */
    retryAfter: z.number().int().min(0).default(1),
    /** Status answered beyond the rate limit: 429, or 503 (an overloaded service's burst of 503s). */
    overloadStatus: z.enum(['429', '503']).default('429'),
    /**
     * RateLimit headers describing the rate limit's bucket on every answer: none; `draft`
     * (RateLimit-Limit/-Remaining/-Reset and RateLimit-Policy); `combined` (the draft's
     * `RateLimit: "bucket";r=..;t=..` with `RateLimit-Policy: "bucket";q=..;w=..`); `x`
     * (X-RateLimit-Limit/-Remaining/-Reset, no policy).
     */
    rateHeaders: z.enum(['none', 'draft', 'combined', 'x']).default('none'),
    /** Service requests per second above which latency grows with load. 0: off. */
    loadKnee: z.number().min(0).default(0),
    /** Added per response for each `loadKnee` of requests per second above the knee, ms. */
    loadLatencyMs: z.number().int().min(0).default(100),

    /** Share of service requests that fail with an injected fault, 0 to 1. */
    faultRate: z.number().min(0).max(1).default(0),
    faultKinds: z.array(z.enum(faultKinds)).min(1).default(['503', 'drop', 'truncate', 'lostReply']),
    /** Milliseconds a `hang` fault holds the request before dropping it. */
    hangMs: z.number().int().min(0).default(5000),
    /** Retry-After seconds sent with an injected 503 fault (0: none). */
    faultRetryAfter: z.number().int().min(0).default(0),
    /**
     * Late write: share of the writes of `lateWriteOps` answered 504 at once and carried out
     * `lateWriteMinMs`..`lateWriteMaxMs` later (a gateway that gave up on a backend that did not).
     */
    lateWriteRate: z.number().min(0).max(1).default(0),
    lateWriteOps: z.array(z.enum(writeOperations)).min(1).default(['createPayment']),
    lateWriteMinMs: z.number().int().min(0).default(100),
    lateWriteMaxMs: z.number().int().min(0).default(800),
    /**
     * Slow write: share of the writes of `slowWriteOps` carried out at once and answered only
     * after `slowWriteMs` (set it above the client's timeout: the client gives up on a done write).
     */
    slowWriteRate: z.number().min(0).max(1).default(0),
    slowWriteOps: z.array(z.enum(writeOperations)).min(1).default(['createPayment']),
    slowWriteMs: z.number().int().min(0).default(35_000),
    /**
     * Operations (by name, e.g. `getStaff`) answering 404 for every request, as a route a gateway
     * does not serve: the service is there, that route is not.
     */
    missingOps: z.array(z.string()).default([]),
    /**
     * Trickle: every successful service response's body is sent one byte every `trickleMs`
     * milliseconds (headers at once), so no idle timeout ever trips. 0: off.
     */
    trickleMs: z.number().int().min(0).default(0),
    /** Added to every service response, in milliseconds (plus up to latencyJitterMs). */
    latencyMs: z.number().int().min(0).default(0),
    latencyJitterMs: z.number().int().min(0).default(0),

    /** Live mutation of the data every N milliseconds while the sandbox runs. 0: off. */
    mutateEveryMs: z.number().int().min(0).default(0),
    /** Live mutation after every N service requests. 0: off. */
    mutateEveryRequests: z.number().int().min(0).default(0),
    /** How many changes one mutation step makes of each kind. */
    mutationSize: z.number().int().min(1).default(5),

    /** Keep every service request (method, path, body) for hook `GET __sim/requests` (benchmarks' replay). */
    recordRequests: z.boolean().default(false),

    /** Hostile data (src/sim/hostile.ts): non-string SSNs, formula and escape names, 1e309, huge errors. */
    hostile: z.boolean().default(false),

    /** Test hooks under `{prefix}/__sim/` (truth, stats, mutate, config). Off unless enabled. */
    hooks: z.boolean().default(false),
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
  'trickleMs',
  'missingOps',
  'mutateEveryMs',
  'mutateEveryRequests',
  'mutationSize',
] as const satisfies readonly (keyof SimOptions)[];
