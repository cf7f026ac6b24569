import type { CodeWords } from '../../render/types.js';
import { complianceWords } from '../compliance/words.js';
import { orderAgeingWords } from '../order-ageing/words.js';
import { kindWords } from './columns.js';

/**
 * The codes of what changed in words: its kinds of change, and the codes of the base reports its
 * lines quote (a status "ON_TRACK → BEHIND", a stage, a flag).
 */
export const changesWords: CodeWords = { ...orderAgeingWords, ...complianceWords, ...kindWords };
