import type { Kysely } from 'kysely';
import type { Database } from './db-types.js';

/** Keys of `mirror_meta`. */
export const metaKeys = {
  /** Base URL of the service whose first sync filled the mirror (never overwritten). */
  sourceBaseUrl: 'source.base_url',
  /** Base URL of the latest sync. */
  lastBaseUrl: 'source.last_base_url',
  /** Set by `ohs demo` when it fills the mirror from its built-in sandbox (random port each run). */
  demoSandbox: 'source.demo_sandbox',
  /** Set when a mirror made before history was upgraded: its present became the first version then. */
  historySince: 'history.since',
  /** The cutoff of the last prune (`mirror.historyDays`): earlier instants are no longer whole. */
  historyPrunedBefore: 'history.pruned_before',
  /** Random secret of this mirror: the rate budget keys its rows by an HMAC of the token with it. */
  rateKeySecret: 'rate.key_secret',
  /**
   * Set in a BI snapshot (src/app/snapshot.ts) only: when it was taken, and the job runs still
   * running then (JSON array of job_run ids): a copy taken during a job, not a job that died.
   */
  snapshotTakenAt: 'snapshot.taken_at',
  snapshotJobRuns: 'snapshot.job_runs',
} as const;

export type MetaKey = (typeof metaKeys)[keyof typeof metaKeys];

/** The value stored under `key`, or undefined. */
export async function readMeta(db: Kysely<Database>, key: MetaKey): Promise<string | undefined> {
  const row = await db.selectFrom('mirror_meta').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/** Stores `value` under `key`; with `onlyIfAbsent`, keeps a value already there. */
export async function writeMeta(
  db: Kysely<Database>,
  key: MetaKey,
  value: string,
  onlyIfAbsent = false,
): Promise<void> {
  const updated_at = new Date().toISOString();
  await db
    .insertInto('mirror_meta')
    .values({ key, value, updated_at })
    .onConflict((oc) =>
      onlyIfAbsent ? oc.column('key').doNothing() : oc.column('key').doUpdateSet({ value, updated_at }),
    )
    .execute();
}

/** Strips credentials, query and fragment: what is stored and shown of a base URL. */
export function displayBaseUrl(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(invalid URL)';
  }
}
