import type { Column } from '../../render/types.js';
import { dataFlagWords, flagSaid, stageWords } from './words.js';

/** The detail columns: docs/reports.md CSV keys in order, then the others. */
export const orderAgeingColumns: Column[] = [
  { key: 'orderItemId', title: 'Order item', type: 'integer' },
  { key: 'orgId', title: 'Org id', type: 'integer' },
  { key: 'org', title: 'Org', type: 'string' },
  { key: 'product', title: 'Product', type: 'string' },
  { key: 'person', title: 'Person', type: 'string' },
  { key: 'status', title: 'Status', type: 'string' },
  { key: 'stage', title: 'Stage', type: 'string', words: stageWords },
  { key: 'createdAt', title: 'Created', type: 'datetime' },
  { key: 'ageHours', title: 'Age (hours)', type: 'number', decimals: 1 },
  { key: 'ageBucket', title: 'Age bucket', type: 'string' },
  { key: 'statusSince', title: 'In status since', type: 'datetime' },
  { key: 'sinceIsLowerBound', title: 'Since is a lower bound (≥)', type: 'boolean' },
  { key: 'timeInStatusHours', title: 'Time in status (hours)', type: 'number', decimals: 1 },
  { key: 'statusBucket', title: 'Time-in-status bucket', type: 'string' },
  {
    key: 'flag',
    title: 'Flag',
    type: 'string',
    alert: { red: ['STUCK'], amber: ['WARN'] },
    words: flagSaid,
  },
  { key: 'flagBasis', title: 'Flag basis', type: 'string' },
  { key: 'flagBasisText', title: 'Flag basis (in words)', type: 'string' },
  { key: 'family', title: 'Product family', type: 'string' },
  { key: 'dataFlags', title: 'Data flags', type: 'string', words: dataFlagWords },
  { key: 'parentOrderItemId', title: 'Parent order item', type: 'integer' },
  { key: 'orderedBy', title: 'Ordered by', type: 'string' },
  { key: 'ageDays', title: 'Age (days)', type: 'number', decimals: 1 },
  { key: 'timeInStatusDays', title: 'Time in status (days)', type: 'number', decimals: 1 },
  { key: 'ageFlag', title: 'Age flag (30d+ is never OK)', type: 'string', alert: { amber: ['30d+'] } },
];

/** The workbook's view: ages in days; the hour columns (the CSV's) grouped and collapsed. */
export const printColumns = [
  'orderItemId',
  'org',
  'product',
  'person',
  'status',
  'stage',
  'createdAt',
  'statusSince',
  'statusBucket',
  'flag',
  'flagBasisText',
  'ageDays',
  'timeInStatusDays',
  'ageFlag',
];
export const columnKeys = orderAgeingColumns.map((c) => c.key);
