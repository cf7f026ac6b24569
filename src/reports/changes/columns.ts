import type { Column } from '../../render/types.js';
import { severityWords } from './line.js';

/** The words a page shows for each kind of change (the CSV and the xlsx keep the code). */
export const kindWords: Record<string, string> = {
  COMPLIANCE_STATUS: 'compliance status changed',
  CATCH_UP_VERDICT: 'catch-up verdict changed',
  COMPLIANCE_RESCORED: 'compliance status re-scored (policy or rates)',
  CATCH_UP_RESCORED: 'catch-up verdict re-scored (policy or rates)',
  POLICY_IMPORTED: 'rate policy imported',
  POLICY_CHANGED: 'rate policy changed',
  POLICY_REMOVED: 'rate policy removed',
  PROBLEM_NEW: 'new data problem',
  PROBLEM_CHANGED: 'data problem grew or changed',
  PROBLEM_GONE: 'data problem gone',
  INVOICE_OVER_60: 'invoice passed 60 days',
  INVOICE_OVER_90: 'invoice passed 90 days',
  INVOICE_NEW: 'new invoice',
  INVOICE_PAID_TOOL: 'paid by this tool',
  INVOICE_PAID_ELSEWHERE: 'paid or credited elsewhere',
  INVOICE_CANCELLED: 'invoice cancelled',
  INVOICE_RESTORED: 'invoice restored',
  INVOICE_REMOVED: 'invoice gone from the service',
  INVOICE_LATE_FEE: 'late fee charged',
  INVOICE_BALANCE_UNKNOWN: 'balance unknown',
  INVOICE_BALANCE_READ: 'balance read again',
  AR_EMPLOYER: "employer's A/R changed",
  AR_TOTAL: 'total A/R changed',
  ORDER_STUCK: 'order newly stuck',
  ORDER_WARN: 'order past its warning age',
  ORDER_EASED: 'order flag eased',
  ORDER_COMPLETED: 'order completed',
  ORDER_CANCELLED: 'order cancelled',
  ORDER_CLOSED: 'order closed (expired or other)',
  ORDER_GONE: 'order gone from the mirror',
  ORDERS_NEW: 'new orders',
  RECORDS_DELETED: 'records found deleted',
  RECORDS_RESTORED: 'records seen again',
  STREAM_INCOMPLETE: 'sync stream incomplete',
  WRITEBACK_FAILED: 'write-backs failed',
  WRITEBACK_HELD: 'write-backs held',
  WRITEBACK_APPLIED: 'write-backs applied',
};

/** The detail: one change a line, worst first (docs/reports.md, "Changes"). */
export const changeColumns: Column[] = [
  {
    key: 'severity',
    title: 'Severity',
    type: 'string',
    width: 14,
    alert: { red: ['action'], amber: ['worse', 'tool'] },
    words: severityWords,
  },
  { key: 'area', title: 'Area', type: 'string', width: 12 },
  { key: 'kind', title: 'Kind', type: 'string', width: 24, words: kindWords },
  { key: 'orgId', title: 'Org id', type: 'integer', width: 9 },
  { key: 'org', title: 'Org', type: 'string', width: 30 },
  { key: 'subject', title: 'What', type: 'string', width: 16 },
  { key: 'before', title: 'Before', type: 'string', width: 30 },
  { key: 'after', title: 'After', type: 'string', width: 30 },
  { key: 'count', title: 'Records', type: 'integer', width: 8 },
  { key: 'evidenceBefore', title: 'Evidence before (report · sheet · key)', type: 'string', width: 44 },
  { key: 'evidenceAfter', title: 'Evidence after (report · sheet · key)', type: 'string', width: 44 },
];

/** The By kind sheet: lines and records per kind, in the detail's order. */
export const kindColumns: Column[] = [
  { key: 'severity', title: 'Severity', type: 'string', width: 14, words: severityWords },
  { key: 'kind', title: 'Kind', type: 'string', width: 24, words: kindWords },
  { key: 'lines', title: 'Lines', type: 'integer', width: 8 },
  { key: 'records', title: 'Records', type: 'integer', width: 8 },
  { key: 'employers', title: 'Employers', type: 'integer', width: 10 },
];

/** The Period sheet: the two ends and how the start was chosen. */
export const periodColumns: Column[] = [
  { key: 'item', title: 'Item', type: 'string', width: 14 },
  { key: 'value', title: 'Value', type: 'string', width: 80 },
];
