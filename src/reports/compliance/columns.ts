import type { Column } from '../../render/types.js';
import { ASSUMED, type Kind, kinds } from './model.js';
import { flagSaid, programSaid, statusSaid as programStatusSaid } from './words.js';

/** The program statuses in the words of the report's (words.ts), and N/A. */
const statusSaid: Record<string, string> = { ...programStatusSaid, 'N/A': 'no pool (n/a)' };

/** The words a page shows for a status (the code stays in the cell's title and the CSV). */
export const statusWords: Record<string, string> = Object.fromEntries(
  Object.entries(statusSaid).flatMap(([code, said]) => [
    [code, said],
    [`${code}${ASSUMED}`, `${said}${ASSUMED}`],
  ]),
);

/** The words a page shows for the flags of a row (words.ts). */
export const flagWords: Record<string, string> = { ...flagSaid };

/** Red: not met or not on pace; amber: waiting for results. */
const statusAlert: Column['alert'] = { red: ['NOT_MET', 'BEHIND', 'AT_RISK'], amber: ['PENDING_RESULTS'] };

function kindColumns(kind: Kind, title: string): Column[] {
  return [
    { key: `${kind}Rate`, title: `${title} rate %`, type: 'number', decimals: 1, width: 9 },
    { key: `${kind}Picked`, title: `${title} picked`, type: 'integer', width: 9 },
    { key: `${kind}Completed`, title: `${title} completed`, type: 'integer', width: 11 },
    { key: `${kind}PickedYtd`, title: `${title} picked YTD`, type: 'integer', width: 11 },
    { key: `${kind}CompletedYtd`, title: `${title} completed YTD`, type: 'integer', width: 13 },
    {
      key: `${kind}ExpectedToDate`,
      title: `${title} expected to date`,
      type: 'number',
      decimals: 2,
      width: 13,
    },
    { key: `${kind}AnnualTarget`, title: `${title} annual target`, type: 'integer', width: 12 },
    {
      key: `${kind}Status`,
      title: `${title} status`,
      type: 'string',
      width: 16,
      alert: statusAlert,
      words: statusWords,
    },
  ];
}

function kindExtraColumns(kind: Kind, title: string): Column[] {
  return [
    { key: `${kind}Shortfall`, title: `${title} shortfall`, type: 'number', decimals: 2, width: 10 },
    { key: `${kind}Remaining`, title: `${title} remaining`, type: 'integer', width: 10 },
    {
      key: `${kind}NeededPerMonth`,
      title: `${title} needed per month`,
      type: 'number',
      decimals: 2,
      width: 12,
    },
    {
      key: `${kind}AnnualizedRate`,
      title: `${title} annualized rate (completed × 12 ÷ exposure: the year's rate at this pace)`,
      type: 'percent',
      width: 12,
    },
    { key: `${kind}CompletionRatio`, title: `${title} completion ratio`, type: 'percent', width: 12 },
  ];
}

/** The month and pool columns of a detail or rollup row. */
const monthColumns: Column[] = [
  { key: 'year', title: 'Year', type: 'integer', width: 6 },
  { key: 'month', title: 'Month', type: 'integer', width: 6 },
  { key: 'pool', title: 'Random pool', type: 'integer', width: 9 },
  { key: 'exposure', title: 'Exposure (pool-months YTD)', type: 'integer', width: 11 },
];

/** Detail columns: docs/reports.md CSV keys in order, then the other computed columns. */
export const complianceColumns: Column[] = [
  { key: 'orgId', title: 'Org id', type: 'integer', width: 9 },
  { key: 'org', title: 'Org', type: 'string', width: 32 },
  ...monthColumns,
  ...kindColumns('drug', 'Drug'),
  ...kindColumns('alcohol', 'Alcohol'),
  { key: 'rateSource', title: 'Rate source', type: 'string', width: 18 },
  { key: 'flags', title: 'Flags', type: 'string', width: 20, words: flagWords },
  { key: 'program', title: 'Program', type: 'string', width: 9, words: programSaid },
  { key: 'agency', title: 'Agency', type: 'string', width: 8 },
  { key: 'avgPoolYtd', title: 'Average pool YTD', type: 'number', decimals: 2, width: 10 },
  { key: 'projectedAvg', title: 'Projected average pool', type: 'number', decimals: 2, width: 10 },
  ...kindExtraColumns('drug', 'Drug'),
  ...kindExtraColumns('alcohol', 'Alcohol'),
  { key: 'eligibleAll', title: 'Eligible, all', type: 'integer', width: 9 },
  { key: 'randomPickDocument', title: 'Random pick document', type: 'string', width: 30 },
  { key: 'coveredEmployeeDocument', title: 'Covered-employee list', type: 'string', width: 30 },
  { key: 'misReportDocument', title: 'MIS report document', type: 'string', width: 30 },
  { key: 'picksNotCompleted', title: 'Picks not completed (month)', type: 'integer', width: 10 },
  { key: 'orgMonthId', title: 'OrgMonth id', type: 'integer', width: 10 },
  { key: 'label', title: 'OrgMonth label', type: 'string', width: 10 },
];

/**
 * The detail's print view: the columns a person reads on paper; the others are
 * grouped and collapsed in the workbook (a click on + shows them), so they do not print. The
 * org id and name are frozen and repeated on every page.
 */
export const printColumns = [
  'orgId',
  'org',
  'month',
  'pool',
  'drugCompletedYtd',
  'drugExpectedToDate',
  'drugAnnualTarget',
  'drugStatus',
  'alcoholCompletedYtd',
  'alcoholExpectedToDate',
  'alcoholAnnualTarget',
  'alcoholStatus',
  'flags',
];

export const ytdColumns: Column[] = [
  { key: 'orgId', title: 'Org id', type: 'integer', width: 9 },
  { key: 'org', title: 'Org', type: 'string', width: 32 },
  { key: 'program', title: 'Program', type: 'string', width: 9, words: programSaid },
  { key: 'rateSource', title: 'Rate source', type: 'string', width: 18 },
  { key: 'year', title: 'Year', type: 'integer', width: 6 },
  { key: 'throughMonth', title: 'Through month', type: 'integer', width: 8 },
  { key: 'exposure', title: 'Exposure (pool-months YTD)', type: 'integer', width: 11 },
  { key: 'avgPoolYtd', title: 'Average pool YTD', type: 'number', decimals: 2, width: 10 },
  { key: 'projectedAvg', title: 'Projected average pool', type: 'number', decimals: 2, width: 10 },
  ...kinds.flatMap((kind) => {
    const title = kind === 'drug' ? 'Drug' : 'Alcohol';
    return [
      {
        key: `${kind}Rate`,
        title: `${title} rate %`,
        type: 'number',
        decimals: 1,
        width: 9,
      } satisfies Column,
      ...kindColumns(kind, title).slice(3),
      ...kindExtraColumns(kind, title),
    ];
  }),
  { key: 'flags', title: 'Flags (months)', type: 'string', width: 24, words: flagWords },
  {
    key: 'picksNotCompleted',
    title: 'Picks never completed (months before the through-month)',
    type: 'integer',
    width: 10,
  },
  { key: 'monthsPicksNotCompleted', title: 'Months with picks never completed', type: 'integer', width: 10 },
  { key: 'quartersWithoutSelection', title: 'Quarters with no selection', type: 'string', width: 12 },
  {
    key: 'monthsWithoutCoveredList',
    title: 'Months with no covered-employee list',
    type: 'integer',
    width: 12,
  },
  { key: 'randomPickDocuments', title: 'Months with a random pick document', type: 'integer', width: 12 },
  { key: 'misReportDocument', title: 'MIS report document', type: 'string', width: 30 },
  { key: 'unreadableLabels', title: 'OrgMonth labels that are no month', type: 'integer', width: 10 },
  { key: 'problems', title: 'Problems named (none: blank)', type: 'string', width: 48 },
];

export const rollupColumns: Column[] = [
  { key: 'orgId', title: 'Parent org id', type: 'integer', width: 9 },
  { key: 'org', title: 'Parent org', type: 'string', width: 32 },
  { key: 'program', title: 'Program', type: 'string', width: 9, words: programSaid },
  { key: 'rollupMode', title: 'Rollup mode', type: 'string', width: 14 },
  { key: 'members', title: 'Member org ids', type: 'string', width: 20 },
  ...monthColumns,
  ...kindColumns('drug', 'Drug'),
  ...kindColumns('alcohol', 'Alcohol'),
  ...kindExtraColumns('drug', 'Drug'),
  ...kindExtraColumns('alcohol', 'Alcohol'),
  {
    key: 'drugMembersBelow',
    title: 'Drug: members below ON_TRACK or with no pool',
    type: 'string',
    width: 40,
  },
  {
    key: 'alcoholMembersBelow',
    title: 'Alcohol: members below ON_TRACK or with no pool',
    type: 'string',
    width: 40,
  },
  { key: 'flags', title: 'Flags', type: 'string', width: 20, words: flagWords },
];
