import type { HeadlineCounts } from '../reports/index.js';
import { type Published, productOf } from './controls.js';

/**
 * What a job run's notice says of the changes report it wrote: its headline and level (its
 * verdict, as its page and the dashboard show it) and the headline counts (its typed facts):
 * counts and the period's start only, never a person, an org or an amount.
 */
export interface ChangesNotice {
  headline: string | null;
  level: 'ok' | 'warn' | 'bad' | null;
  counts: HeadlineCounts | null;
}

/**
 * The changes report among what a run published, or null when it wrote none. Made from the run's
 * result (the verdict and the typed facts writeReport returned), never from a file read back: a
 * CSV read back would fail on an employer named with the CSV's separator, and the notice would
 * not be sent on the very run whose report says Action needed.
 */
export function changesNotice(run: readonly Published[]): ChangesNotice | null {
  const ours = run.find((p) => p.report === 'changes');
  if (ours === undefined) return null;
  const facts = productOf(run, 'changes');
  return {
    headline: ours.written.summary.headline ?? null,
    level: ours.written.summary.level,
    counts: facts?.counts ?? null,
  };
}
