import { z } from 'zod';
import { boolOption, enumOption, intOption, listOption, numberOption } from '../core/params.js';
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
  includeTerminal: boolOption()
    .default(false)
    .describe('Terminal items too (completed, cancelled, expired).'),
  /** Only these stages (a terminal stage named here is included without includeTerminal). */
  stages: listOption(stageOption)
    .optional()
    .describe(
      'Only these stages (a terminal stage named here is included without includeTerminal). Default: every open stage.',
    ),
  /** Only products whose name contains this text (case-insensitive). */
  product: z
    .string({ error: 'expected text' })
    .optional()
    .describe('Only products whose name contains this text (case-insensitive). Default: every product.'),
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
    .optional()
    .describe('Status name (case-insensitive) to stage, or to {stage, terminal}, over the built-in reading.'),
  /** Warn / stuck hours per stage of drug and alcohol tests, over the defaults. */
  thresholds: thresholdsOption
    .optional()
    .describe('Warn and stuck hours per stage of drug and alcohol tests, over the built-in ones.'),
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
    .optional()
    .describe(
      'Product families with their own thresholds, over drug and alcohol: name to {match: texts a product name contains, thresholds}; items of no family are left out.',
    ),
  /** The sync's poll interval: history first seen within it of creation means "since creation". @default 24 */
  pollIntervalHours: numberOption(0, 24 * 365)
    .default(24)
    .describe(
      "The sync's poll interval, hours: history first seen within it of an item's creation counts from creation.",
    ),
  /** Rows sorted in memory at once before spilling to a temporary file. @default 50000 */
  sortChunkRows: intOption(2, 10_000_000)
    .default(50_000)
    .describe('Rows sorted in memory at once before spilling to a temporary file.'),
});

export type OrderAgeingOptions = z.output<typeof orderAgeingOptions>;
