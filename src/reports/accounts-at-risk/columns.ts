import type { Column } from '../../render/types.js';
import { statusSaid } from '../compliance/words.js';
import { accountsAtRiskWords, kindWords } from './words.js';

/** One row per employer; the last three columns are the keys of its evidence rows. */
export function accountsColumns(oldLabel: string): Column[] {
  return [
    { key: 'orgId', title: 'Org id', type: 'integer', width: 9 },
    { key: 'org', title: 'Org', type: 'string', width: 30 },
    { key: 'kinds', title: 'Kinds of risk', type: 'string', width: 30, words: kindWords },
    { key: 'kindCount', title: 'Kinds', type: 'integer', width: 7, alert: { positive: 'red' } },
    {
      key: 'complianceStatus',
      title: 'Compliance (worst of drug and alcohol)',
      type: 'string',
      width: 14,
      alert: { red: ['NOT_MET', 'BEHIND'], amber: ['AT_RISK'] },
      words: statusSaid,
    },
    {
      key: 'complianceBasis',
      title: 'Measured or assumed',
      type: 'string',
      width: 10,
      alert: { amber: ['assumed', 'none'] },
    },
    { key: 'drugStatus', title: 'Drug status', type: 'string', width: 14, words: statusSaid },
    { key: 'alcoholStatus', title: 'Alcohol status', type: 'string', width: 14, words: statusSaid },
    { key: 'openBalance', title: 'Open balance (net)', type: 'money', width: 14 },
    {
      key: 'balance91Plus',
      title: `${oldLabel} balance`,
      type: 'money',
      width: 13,
      alert: { positive: 'red' },
    },
    { key: 'oldestDaysPastDue', title: 'Oldest days past due', type: 'integer', width: 9 },
    { key: 'openOrders', title: 'Open orders', type: 'integer', width: 8 },
    { key: 'onHold', title: 'On hold', type: 'integer', width: 8 },
    { key: 'stuck', title: 'Stuck', type: 'integer', width: 8, alert: { positive: 'red' } },
    { key: 'lastDrugAlcoholOrder', title: 'Last drug or alcohol order', type: 'datetime', width: 22 },
    { key: 'daysSinceLastOrder', title: 'Days since that order', type: 'integer', width: 9 },
    {
      key: 'complianceEvidence',
      title: 'Compliance rows',
      type: 'string',
      width: 36,
      link: 'complianceHref',
    },
    { key: 'invoiceEvidence', title: 'Unpaid invoice rows', type: 'string', width: 36, link: 'invoiceHref' },
    { key: 'orderEvidence', title: 'Order ageing rows', type: 'string', width: 36, link: 'orderHref' },
    // The order that decides STOPPED_TESTING or TESTING_UNPAID (the last drug or alcohol order):
    // it may be completed, so in no open-items file; named here.
    { key: 'decidingOrderId', title: 'Deciding order', type: 'integer', width: 11 },
    { key: 'decidingOrderProduct', title: 'Deciding order: product', type: 'string', width: 24 },
    { key: 'decidingOrderCreated', title: 'Deciding order: created', type: 'datetime', width: 22 },
  ];
}

export const kindCountColumns: Column[] = [
  { key: 'kind', title: 'Kind of risk', type: 'string', width: 22, words: kindWords },
  { key: 'rule', title: 'Rule', type: 'string', width: 80, words: accountsAtRiskWords },
  { key: 'employers', title: 'Employers', type: 'integer', width: 10 },
  { key: 'onAssumedRates', title: 'Of them on an assumed rate', type: 'integer', width: 12 },
];

/** The three reports joined, with the warnings each gave (on the Warnings sheet, named). */
export const joinedColumns: Column[] = [
  { key: 'report', title: 'Report', type: 'string', width: 18 },
  { key: 'file', title: 'Its files (same as-of)', type: 'string', width: 40 },
  { key: 'warnings', title: 'Warnings', type: 'integer', width: 9, alert: { positive: 'amber' } },
];
