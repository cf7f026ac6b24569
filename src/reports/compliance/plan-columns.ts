import type { Column } from '../../render/types.js';
import { ASSUMED } from './model.js';
import { verdictSaid as planVerdictSaid } from './words.js';

const verdictSaid: Record<string, string> = { ...planVerdictSaid, 'N/A': 'n/a' };

/** The words a page shows for a verdict (the code stays in the cell's title and the CSV). */
export const verdictWords: Record<string, string> = Object.fromEntries(
  Object.entries(verdictSaid).flatMap(([code, said]) => [
    [code, said],
    [`${code}${ASSUMED}`, `${said}${ASSUMED}`],
  ]),
);

/**
 * The plan's columns, CSV keys in this order (docs/reports.md): the verdict and what to do first,
 * then the compliance figures it rests on, then how the pace was read.
 */
export const catchUpColumns: Column[] = [
  { key: 'orgId', title: 'Org id', type: 'integer', width: 9 },
  { key: 'org', title: 'Org', type: 'string', width: 32 },
  { key: 'year', title: 'Year', type: 'integer', width: 6 },
  { key: 'throughMonth', title: 'Through month', type: 'integer', width: 8 },
  { key: 'testType', title: 'Test type', type: 'string', width: 8 },
  {
    key: 'verdict',
    title: 'Verdict',
    type: 'string',
    width: 16,
    // An assumed rate's verdict is not coloured as a measured finding.
    alert: { red: ['CANNOT_MEET', 'NOT_MET'], amber: ['NEEDS_MORE', 'NEEDS_REVIEW'] },
    words: verdictWords,
  },
  { key: 'perPeriod', title: 'Picks needed per period left', type: 'integer', width: 10 },
  {
    key: 'regularPerPeriod',
    title: 'Regular draw per period (rate × pool now ÷ periods a year)',
    type: 'number',
    decimals: 2,
    width: 10,
  },
  { key: 'needed', title: 'Picks still needed', type: 'integer', width: 9 },
  { key: 'annualTarget', title: 'Annual target', type: 'integer', width: 9 },
  { key: 'completedYtd', title: 'Completed YTD', type: 'integer', width: 9 },
  { key: 'pending', title: 'Pending results (picked, not completed)', type: 'integer', width: 10 },
  { key: 'selection', title: 'Selection periods', type: 'string', width: 10 },
  { key: 'periodsLeft', title: 'Periods left', type: 'integer', width: 8 },
  { key: 'pacePerPeriod', title: 'Picks per period so far', type: 'number', decimals: 2, width: 10 },
  { key: 'paceTests', title: 'Tests at year end at this pace', type: 'number', decimals: 2, width: 10 },
  { key: 'paceRate', title: 'Year-end rate at this pace', type: 'percent', width: 10 },
  { key: 'avgPool', title: 'Average pool YTD', type: 'number', decimals: 2, width: 10 },
  { key: 'rate', title: 'Rate %', type: 'number', decimals: 1, width: 8 },
  { key: 'rateSource', title: 'Rate source', type: 'string', width: 18 },
  { key: 'assumedRate', title: 'Assumed rate', type: 'boolean', width: 8 },
  { key: 'reason', title: 'Why', type: 'string', width: 48 },
  { key: 'currentPool', title: 'Pool now (the through-month)', type: 'integer', width: 8 },
  { key: 'periodsDone', title: 'Periods ended since joining', type: 'integer', width: 8 },
  { key: 'firstMonth', title: 'First month with a row (joined)', type: 'integer', width: 8 },
  { key: 'problems', title: 'Problems named (none: blank)', type: 'string', width: 48 },
];

/** The By verdict sheet: employers per test type and verdict, assumed rates among them. */
export const verdictColumns: Column[] = [
  { key: 'testType', title: 'Test type', type: 'string', width: 8 },
  { key: 'verdict', title: 'Verdict', type: 'string', width: 14, words: verdictWords },
  { key: 'employers', title: 'Employers', type: 'integer', width: 10 },
  { key: 'assumed', title: 'Of them on an assumed rate', type: 'integer', width: 10 },
  { key: 'needed', title: 'Picks still needed', type: 'integer', width: 10 },
];
