import type { Row } from '../../render/types.js';
import type { YtdFacts } from '../compliance/figures.js';

/**
 * The catch-up plan's typed product: its inputs' counts (the run's controls compare them with
 * compliance's) and its plan lines, most urgent first (the detail's rows are these same lines).
 * Its page reads this, never a sheet by its name.
 */
export interface CatchUpProduct extends YtdFacts {
  plan: readonly Row[];
}
