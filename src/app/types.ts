import type { OhsClient } from '../api/index.js';
import type { Config } from '../config/index.js';
import type { AsOf } from '../dates.js';
import type { Logger } from '../log.js';
import type { Mirror } from '../mirror/index.js';
import type { ChangesNotice } from './changes-notice.js';

/** What a job is given: built at the edge (CLI, cron worker, demo) and passed in. */
export interface JobEnv {
  config: Config;
  logger: Logger;
  mirror: Mirror;
  /** The API client, made on first use (the reports job never needs one). */
  client: () => OhsClient;
  /** Aborted on SIGINT/SIGTERM: the sync stops after the page under way. */
  signal: AbortSignal;
  /** The as-of of reports (`--as-of`, else the clock when the job started), resolved at the edge. */
  asOf: AsOf;
  /** The service check already passed before the mirror was opened: a sync need not ask again. */
  serviceChecked?: boolean;
}

export interface JobResult {
  /** Files written. */
  outputs: string[];
  /** The sync run the job made, if any. */
  syncRunId?: number;
  /** The changes report the job wrote, from the run's result (its notice's part); absent: none. */
  changes?: ChangesNotice;
}

export type JobName = 'nightly' | 'sync' | 'reports' | 'push';

export type Job = (env: JobEnv) => Promise<JobResult>;
