import {
  ApplyConflictError,
  ApplyHeldError,
  ApplyIncompleteError,
  applyOutbox,
  applySettings,
} from '../writeback/index.js';
import type { JobEnv, JobResult } from './types.js';

/**
 * The `push` job: applies the write-back outbox without asking anything. Permanent person
 * deletions are sent only when a person confirmed them before (an `ohs apply` answered yes or
 * given --yes, which leaves its confirmation on the item); unconfirmed ones stay queued.
 * Fails (job outcome failed) when an item ended in conflict, failed, held or with an unknown
 * outcome; a conflict first (its code, APPLY_CONFLICT, is the notice's errorCode).
 */
export async function pushJob(env: JobEnv): Promise<JobResult> {
  const report = await applyOutbox(env.client(), env.mirror, {
    ...applySettings(env.config),
    deletes: 'confirmed',
    logger: env.logger,
    signal: env.signal,
  });
  env.logger.info(
    { ...report.counts, reconciled: report.reconciled, deletesWaiting: report.deletesWaiting },
    'outbox pushed',
  );
  if (report.counts.conflict > 0)
    throw new ApplyConflictError(
      `${report.counts.conflict} conflict (sent, but the balance read back is not the balance before less the amount: see ohs outbox --state conflict)`,
    );
  if (report.counts.held > 0)
    throw new ApplyHeldError(
      `${report.counts.held} held (not sent: see ohs outbox --state held; re-plan, or ohs apply --release ID)`,
    );
  if (report.counts.failed + report.counts.unknown > 0)
    throw new ApplyIncompleteError(
      `${report.counts.failed} failed, ${report.counts.unknown} unknown outcome(s): see ohs outbox`,
    );
  return { outputs: [] };
}
