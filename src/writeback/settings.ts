import type { Config } from '../config/index.js';
import type { ApplyOptions } from './apply.js';
import type { PlanOptions } from './plan.js';

type PlanSettings = Pick<
  PlanOptions,
  'limits' | 'centsRatio' | 'confirmRows' | 'confirmAmount' | 'storeSensitive'
>;
type ApplySettings = Pick<ApplyOptions, 'concurrency' | 'settleMs' | 'agreeingReads'>;

/**
 * The configured part of `planFile`'s options (config `input`, `writeback`, `mirror`): read here
 * once, so the planner holds no default of its own.
 */
export function planSettings(config: Config): PlanSettings {
  const { writeback } = config;
  return {
    limits: config.input,
    centsRatio: writeback.centsRatio,
    confirmRows: writeback.confirmRows,
    confirmAmount: writeback.confirmAmount,
    storeSensitive: config.mirror.storeSensitive,
  };
}

/** The configured part of `applyOutbox`'s options (lanes from api.concurrency, writeback's settling). */
export function applySettings(config: Config): ApplySettings {
  return {
    concurrency: config.api.concurrency,
    settleMs: config.writeback.settleMs,
    agreeingReads: config.writeback.agreeingReads,
  };
}
