import { z } from 'zod';
import { instantOrDurationOption } from '../core/params.js';

/**
 * The changes report's options: the start of its period. `since` is an instant (the one instant
 * grammar; a date alone: its start in the zone) or a duration back from the run's instant (`7d`,
 * `24h`, `90m`); absent: the end of the last successful nightly job (since.ts).
 */
export const changesOptions = z.object({
  since: instantOrDurationOption()
    .optional()
    .describe(
      'Start of the period: an instant (ISO 8601; a date alone: its start in the zone) or a duration back from the run (7d, 24h, 90m). Default: the end of the last successful nightly job.',
    ),
});

export type ChangesOptions = z.output<typeof changesOptions>;
