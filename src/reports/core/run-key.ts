import type { ReportInput } from './types.js';

/**
 * What a report's shared figures depend on within a run: its options, orgs, scope, the instant
 * read and the as-of. Two reports asking with equal keys share one build (ReportRun.product).
 */
export function figuresKey<O>(input: ReportInput<O>) {
  const { common, opts, scope, at } = input;
  return {
    opts,
    orgIds: common.orgIds,
    scope: scope === null ? null : [...scope].sort((a, b) => a - b),
    at: at ?? null,
    asOf: [common.asOfText, common.asOfMs, common.timezone],
  };
}
