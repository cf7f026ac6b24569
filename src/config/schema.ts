import cron from 'node-cron';
import { z } from 'zod';
import { isUtcName } from '../dates.js';
import { logLevels } from './log-levels.js';
import { monitorConfigSchema } from './monitor-schema.js';

export { logLevels };

/**
 * Every configuration key: its type, bounds and meaning. Its default value is written once, in
 * config/default.json (never here, never in the modules: they take the parsed, resolved values).
 * Unknown keys are errors (a misspelt key would otherwise be ignored silently).
 */
export const apiConfigSchema = z
  .object({
    /** Requests in flight at the start (then adaptive, up to maxConcurrency); write-back lanes. */
    concurrency: z.number().int().min(1).max(64),
    /**
     * Ceiling of the adaptive concurrency: requests in flight follow the service's latency
     * (Gradient2-like, docs/rate.md) up to this. Equal to `concurrency`: fixed at it.
     */
    maxConcurrency: z.number().int().min(1).max(256),
    /**
     * Requests started per second, across every process on the mirror: "auto" finds the service's
     * limit (adaptive, CUBIC); a number is a ceiling the adaptive rate never exceeds.
     */
    requestsPerSecond: z.union([z.literal('auto'), z.number().positive()]),
    /** Per-request timeout, milliseconds. */
    timeoutMs: z.number().int().min(100),
    /** Longest a request may take from sending to the body's last byte, milliseconds. */
    requestDeadlineMs: z.number().int().min(1000),
    /** Shortest total deadline of one attempt, milliseconds (the deadline follows the p99 seen). */
    deadlineFloorMs: z.number().int().min(100),
    /** One attempt's total deadline: this multiple of the p99 duration seen, within the floor and requestDeadlineMs. */
    deadlineP99Multiple: z.number().min(1).max(1000),
    /** Largest response body read, bytes; a longer one is cut off as a protocol error. */
    maxResponseBytes: z.number().int().min(1024),
    /** Retries of a request that is safe to repeat, after the first attempt. */
    maxRetries: z.number().int().min(0).max(20),
    /** First backoff delay, milliseconds; doubles each retry, with jitter. */
    retryBaseMs: z.number().int().min(0),
    /** Largest backoff delay, milliseconds. */
    retryMaxMs: z.number().int().min(0),
    /** pageSize asked of query operations (the service may send fewer). */
    pageSize: z.number().int().min(1).max(10_000),
    /** Retries of 429 answers (they never did anything; each slows the whole client). */
    maxRateLimitRetries: z.number().int().min(0).max(1000),
    /** Name of the GET field-selection query parameter (`ohs probe` finds it). */
    fieldsParam: z.string().min(1),
    /** Largest pageSize the service honours; 0: unknown (`ohs probe` finds it). */
    pageCap: z.number().int().min(0),
    /** Key of the records in object list envelopes; absent: find it in each response. */
    envelopeKey: z.string().min(1).optional(),
    /** Key of the total in object list envelopes; absent: look for a common one. */
    totalKey: z.string().min(1).optional(),
  })
  .strict();

export const mirrorConfigSchema = z
  .object({
    /** Keep SSNs, birth dates, licence numbers unmasked in the mirror. Off unless you must. */
    storeSensitive: z.boolean(),
    /**
     * Days of history kept (src/mirror/history.ts): versions that ended longer ago are pruned
     * after each sync (never a current one); reports as of earlier instants are then refused.
     */
    historyDays: z.number().int().min(1).max(36_500),
  })
  .strict();

export const syncConfigSchema = z
  .object({
    /**
     * Most id ranges a full pass of a large keyset stream (OrderItem) is read in at once; fewer
     * when its expected pages are few or the client's concurrency is lower (src/sync/ranges.ts).
     */
    partitions: z.number().int().min(1).max(64),
    /** Consecutive 404s that end probing upward for new Invoice, Staff, Applicant ids. */
    probeWindow: z.number().int().min(1).max(10_000),
    /**
     * Ids one run may ask above the highest known id, per id stream, at most: a run reaches as far
     * again as the span of ids the stream holds (src/sync/id-probe.ts probeReach), and a first
     * sync, holding nothing, this far. A stream stopped at its reach is recorded incomplete.
     */
    probeMaxIds: z.number().int().min(1),
    /** Id streams: each incremental run re-reads 1/rereadRuns of the id range (all within N runs). */
    rereadRuns: z.number().int().min(1).max(10_000),
    /** Share of a table one pass may soft-delete before it stops and asks for --allow-mass-delete. */
    massDeleteShare: z.number().min(0).max(1),
    /** Deletions of at most this many rows never count as mass deletions. */
    massDeleteMinRows: z.number().int().min(0),
    /** First id to probe, per id stream (invoice, staff, applicant), when the mirror knows none. */
    idStart: z
      .object({
        invoice: z.union([z.string().min(1), z.number().int()]),
        staff: z.union([z.string().min(1), z.number().int()]),
        applicant: z.union([z.string().min(1), z.number().int()]),
      })
      .strict(),
  })
  .strict();

export const jobsConfigSchema = z
  .object({
    /**
     * Cron expressions (5 fields, or 6 with seconds) per job name, for `ohs cron`, in `timezone`;
     * `null` or "off" switches a job off (the default nightly one included).
     */
    schedules: z
      .partialRecord(
        z.enum(['nightly', 'sync', 'reports', 'push']),
        z.preprocess(
          (v) => (typeof v === 'string' && v.trim().toLowerCase() === 'off' ? null : v),
          z
            .string()
            .refine(
              (e) => cron.validate(e),
              'not a valid cron expression (or null / "off" to switch the job off)',
            )
            .nullable(),
        ),
      )
      .transform((all) => {
        const on: Partial<Record<'nightly' | 'sync' | 'reports' | 'push', string>> = {};
        for (const [job, expression] of Object.entries(all) as [keyof typeof on, string | null][])
          if (expression !== null) on[job] = expression;
        return on;
      }),
    /** Day of the week (0 = Sunday) on which the nightly job does a full pass. */
    fullPassWeekday: z.number().int().min(0).max(6),
    /** Where jobs write reports. */
    outDir: z.string().min(1),
    formats: z.array(z.enum(['xlsx', 'csv', 'html'])).min(1),
    /** Report files written more than this many days ago (modification time) are removed by the nightly job; 0 keeps all. */
    retentionDays: z.number().int().min(0),
  })
  .strict();

export const reportsConfigSchema = z
  .object({
    /**
     * Report options for every run (`--option`s override them), e.g. {"dropInvoice": "ignore"}
     * or {"families": {...}}; an option no report knows is an error when a report runs.
     */
    options: z.record(z.string(), z.unknown()),
    csv: z
      .object({
        /** UTF-8 byte order mark first, so Excel reads accented names right. */
        bom: z.boolean(),
        /** `,`, or `;` for Excel in locales with a decimal comma (`--csv-excel`). */
        delimiter: z.enum([',', ';']),
        /** Text beginning with = + - @, tab or CR gets a leading `'` (formula injection). */
        neutralise: z.boolean(),
      })
      .strict(),
  })
  .strict();

/** Write-back (`ohs plan`, `ohs apply`, the push job): docs/writeback.md. */
export const writebackConfigSchema = z
  .object({
    /** Milliseconds an unknown outcome is left to settle before its effect is read back. */
    settleMs: z.number().int().min(0),
    /** Consecutive reads, in as many apply runs, that must agree "not carried out" before an unknown payment or person create is sent again. */
    agreeingReads: z.number().int().min(1).max(20),
    /** A payment above this many times its invoice's balance is refused as "looks like cents"; 0: off. */
    centsRatio: z.number().min(0),
    /** `ohs plan` asks (TTY) or needs --yes above this many rows ... */
    confirmRows: z.number().int().min(0),
    /** ... or above this total of payments, in dollars. */
    confirmAmount: z.number().min(0),
  })
  .strict();

/**
 * Bounds of the files people give (`ohs plan`, `ohs policy import`), each refused with a clear
 * error before memory grows: the file's size (read from the file system), an XLSX's unpacked
 * size (from its zip central directory, before unpacking: a zip bomb), rows, one field's length.
 */
export const inputConfigSchema = z
  .object({
    /** Largest input file, bytes. */
    maxFileBytes: z.number().int().min(1),
    /** Largest total unpacked size of an XLSX's parts, bytes, as its zip directory declares it. */
    maxXlsxUnpackedBytes: z.number().int().min(1),
    /** Most data rows in one file. */
    maxRows: z.number().int().min(1),
    /** Longest field (cell), characters. */
    maxFieldChars: z.number().int().min(1),
  })
  .strict();

/** What `ohs probe` found about the service's reading of the interface's gaps (informational). */
export const serviceFindingsSchema = z
  .object({
    probedAt: z.string(),
    baseUrl: z.string(),
    envelope: z.enum(['array', 'object']),
    defaultOrder: z.enum(['id-asc', 'id-desc', 'unordered']),
    defaultOmits: z.array(z.string()),
    stringCase: z.enum(['insensitive', 'sensitive', 'unknown']),
    /** Reading of listContains found by `ohs probe` (optional: older probe files lack it). */
    listContains: z.enum(['any-of', 'other', 'unknown']).optional(),
  })
  .strict();

/** True for a time zone name this Node's Intl knows (IANA names, UTC). */
export function isTimeZone(name: string): boolean {
  // UTC itself needs no Intl (src/dates.ts: its first formatter costs about 35 ms of CPU).
  if (isUtcName(name)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const configSchema = z
  .object({
    /** Base URL of the service, e.g. https://ohs.example.com/api. */
    baseUrl: z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, '')),
    /** Bearer token (from OHS_TOKEN or a token file; never put it in a checked-in file). */
    token: z.string().min(1).optional(),
    /** File holding the bearer token. */
    tokenFile: z.string().min(1).optional(),
    /** The mirror: a SQLite file, or a PostgreSQL connection string (postgres://...). */
    db: z.string().min(1),
    logLevel: z.enum(logLevels),
    /**
     * The terminal: `text` (warnings grouped by kind in each command's closing summary), `json`
     * (every log line as NDJSON on stderr, for machines), `pretty` (every line, readable).
     */
    logFormat: z.enum(['text', 'json', 'pretty']),
    /** A file every log line is appended to as JSON (created 0600), whatever the format; null: none. */
    logFile: z.string().min(1).nullable(),
    /** Reporting and scheduling time zone (IANA name, e.g. Europe/Berlin), checked at load. */
    timezone: z.string().min(1).refine(isTimeZone, 'not an IANA time zone name (e.g. UTC, America/Chicago)'),
    api: apiConfigSchema,
    mirror: mirrorConfigSchema,
    sync: syncConfigSchema,
    jobs: jobsConfigSchema,
    reports: reportsConfigSchema,
    writeback: writebackConfigSchema,
    input: inputConfigSchema,
    monitor: monitorConfigSchema,
    service: serviceFindingsSchema.optional(),
  })
  .strict();

export type Config = z.output<typeof configSchema>;
export type ApiConfig = z.output<typeof apiConfigSchema>;
export type SyncConfig = z.output<typeof syncConfigSchema>;
export type InputConfig = z.output<typeof inputConfigSchema>;
