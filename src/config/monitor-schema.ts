import { z } from 'zod';
import { DURATION_WORDS, parseDuration } from '../dates.js';

/**
 * Watching the worker (docs/monitoring.md): the age `ohs status --check` calls stale, the nightly
 * job's notification, its Prometheus textfile and the read-only snapshot for BI readers.
 */
export const monitorConfigSchema = z
  .object({
    /** `ohs status --check` is CRITICAL when a stream's last success is older than this. */
    maxAge: z.string().refine((v) => parseDuration(v) !== null, `expected ${DURATION_WORDS}`),
    notify: z
      .object({
        /** A command (argv, no shell) run after a job; the JSON notice on its stdin. */
        command: z.array(z.string().min(1)).min(1).nullable(),
        /** A URL the JSON notice is POSTed to. */
        webhook: z.url({ protocol: /^https?$/ }).nullable(),
        /** Notify after successful runs too (default: failed and interrupted ones only). */
        onSuccess: z.boolean(),
        /** How long the command or the webhook may take. */
        timeoutMs: z.number().int().min(100),
      })
      .strict(),
    /**
     * A file written after every job run in node_exporter's textfile-collector format (name it
     * `*.prom` in the collector's folder); null: none.
     */
    textfile: z.string().min(1).nullable(),
    snapshot: z
      .object({
        /** A SQLite file written after each nightly sync (VACUUM INTO) for readers under other accounts; null: none. */
        path: z.string().min(1).nullable(),
        /** Its mode, octal text (0640: the owner and the group read it). */
        mode: z.string().regex(/^0?[0-7]{3}$/, 'expected an octal mode such as 0640'),
        /** Its group (name or number); null: the worker's own. */
        group: z.union([z.string().min(1), z.number().int().min(0)]).nullable(),
      })
      .strict(),
  })
  .strict();

export type MonitorConfig = z.output<typeof monitorConfigSchema>;
