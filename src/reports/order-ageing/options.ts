import { z } from 'zod';
import { boolOption, enumOption, intOption, listOption, numberOption } from '../params.js';
import { stages } from './classify.js';

const stageOption = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toUpperCase().replace(/[- ]/g, '_') : v),
  enumOption(stages),
);

const thresholdsOption = z.partialRecord(
  stageOption,
  z.object(
    { warn: numberOption(0, 100_000), stuck: numberOption(0, 100_000) },
    { error: 'expected {warn, stuck}' },
  ),
);

export const orderAgeingOptions = z.object({
  /** Terminal items too (completed, cancelled, expired). @default false */
  includeTerminal: boolOption().default(false),
  /** Only these stages (a terminal stage named here is included without includeTerminal). */
  stages: listOption(stageOption).optional(),
  /** Only products whose name contains this text (case-insensitive). */
  product: z.string({ error: 'expected text' }).optional(),
  /** Status name (case-insensitive) → stage, or {stage, terminal}; merged over the defaults. */
  statusStage: z
    .record(
      z.string(),
      z.preprocess(
        (v) => (typeof v === 'string' ? { stage: v } : v),
        z.object(
          { stage: stageOption, terminal: boolOption().optional() },
          { error: 'expected a stage or {stage, terminal}' },
        ),
      ),
      { error: 'expected an object of status name to stage' },
    )
    .optional(),
  /** Warn / stuck hours per stage of drug and alcohol tests, over the defaults. */
  thresholds: thresholdsOption.optional(),
  /**
   * Product families with their own thresholds, over the defaults (drug, alcohol): name →
   * {match: texts a product name contains, thresholds}. Items of no family are left out.
   */
  families: z
    .record(
      z.string(),
      z.object(
        {
          match: listOption(z.string().min(1, { error: 'expected text' })),
          thresholds: thresholdsOption.optional(),
        },
        { error: 'expected {match, thresholds}' },
      ),
      { error: 'expected an object of family name to {match, thresholds}' },
    )
    .optional(),
  /** The sync's poll interval: history first seen within it of creation means "since creation". @default 24 */
  pollIntervalHours: numberOption(0, 24 * 365).default(24),
  /** Rows sorted in memory at once before spilling to a temporary file. @default 50000 */
  sortChunkRows: intOption(2, 10_000_000).default(50_000),
});

export type OrderAgeingOptions = z.output<typeof orderAgeingOptions>;
