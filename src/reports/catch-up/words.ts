import type { CodeWords } from '../../render/types.js';
import { complianceWords } from '../compliance/words.js';

/** The plan's codes in words: its verdicts and the statuses and flags of compliance it rests on. */
export const catchUpWords: CodeWords = complianceWords;
