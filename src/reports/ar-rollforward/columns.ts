import type { Column } from '../../render/types.js';
import type { Movement } from './movements.js';

type LineKey =
  | keyof Movement
  | 'decreasesApplied'
  | 'decreasesElsewhere'
  | 'openingOwed'
  | 'openingCredits'
  | 'closingOwed'
  | 'closingCredits';

/** The lines of the roll-forward, in order, each with its rule (the About sheet says them too). */
export const LINES: { key: LineKey; label: string; rule: string }[] = [
  {
    key: 'opening',
    label: 'Opening A/R',
    rule: "the ageing's net total as of the start (open invoices, credits netted, cancelled ones out)",
  },
  {
    key: 'openingOwed',
    label: '   of which owed',
    rule: 'the invoices with a balance above zero at the start (what customers owe)',
  },
  {
    key: 'openingCredits',
    label: '   of which credit balances',
    rule: "the invoices below zero at the start (owed to customers; the ageing's Credits column)",
  },
  {
    key: 'new',
    label: '+ New invoices',
    rule: 'invoices entering A/R for the first time in the period: dated in it (or their invoice date reached)',
  },
  {
    key: 'found',
    label: '+ Found, dated earlier',
    rule: 'invoices first seen in the period although dated before it: older invoices the mirror had not seen, not new business',
  },
  {
    key: 'lateFees',
    label: '+ Late fees',
    rule: "the rise of an invoice's lateFee field while it is in A/R",
  },
  {
    key: 'increases',
    label: '+ Other increases',
    rule: 'balance up on an invoice already in A/R beyond its late fees (adjustments), or up from zero',
  },
  {
    key: 'decreases',
    label: '− Decreases',
    rule: 'balance down on an invoice in A/R (payments, credits, write-offs), paid to zero included',
  },
  {
    key: 'decreasesApplied',
    label: '   of which payments applied by this tool',
    rule: "up to the invoice's decreases, the payments write-back applied on it in the period (outbox, state applied)",
  },
  {
    key: 'decreasesElsewhere',
    label: '   of which elsewhere',
    rule: 'the rest of the decreases: payments, credits and write-offs made in the service (it records no write-off of its own: one shows here)',
  },
  {
    key: 'cancellations',
    label: '− Cancellations',
    rule: 'dropInvoice filled in the period: the balance before it leaves A/R',
  },
  {
    key: 'restorations',
    label: '+ Restorations',
    rule: 'a cancelled invoice restored (dropInvoice cleared), or one gone from the service seen again: its balance returns',
  },
  {
    key: 'removed',
    label: '− Removed from the service',
    rule: 'an invoice the sync found gone (deleted in the service): its balance leaves A/R',
  },
  {
    key: 'unknown',
    label: '− Balance unknown (held apart)',
    rule: 'an invoice in A/R whose balance turned null or unreadable: its last known balance leaves A/R owed and is held apart, never counted as paid or credited (negative: read again, it returns)',
  },
  { key: 'closing', label: 'Closing A/R', rule: "the ageing's net total as of the end" },
  {
    key: 'closingOwed',
    label: '   of which owed',
    rule: 'the invoices with a balance above zero at the end',
  },
  {
    key: 'closingCredits',
    label: '   of which credit balances',
    rule: "the invoices below zero at the end (the ageing's Credits column)",
  },
];

/** The movement lines drawn as steps of the waterfall (the "of which" lines are parts of them). */
export const STEPS: LineKey[] = [
  'new',
  'found',
  'lateFees',
  'increases',
  'decreasesApplied',
  'decreasesElsewhere',
  'cancellations',
  'restorations',
  'removed',
  'unknown',
];

/** Lines taken away from A/R (shown with a minus; the waterfall steps them down). */
export const DOWN = new Set<string>([
  'decreases',
  'decreasesApplied',
  'decreasesElsewhere',
  'cancellations',
  'removed',
  'unknown',
]);

/** The sentence every roll-forward carries: the service has no write-off of its own. */
export const NO_WRITE_OFF =
  'The service records no write-off: a balance written off there shows as a decrease elsewhere, like a payment or a credit.';

export const lineColumns: Column[] = [
  { key: 'line', title: 'Line', type: 'string', width: 44 },
  { key: 'amount', title: 'Amount', type: 'money', width: 16 },
  { key: 'invoices', title: 'Invoices', type: 'integer', width: 9 },
  // A check's difference, apart from the amounts: coloured when it is not zero.
  { key: 'check', title: 'Check (must be 0.00)', type: 'money', width: 12, alert: { nonZero: 'red' } },
  { key: 'rule', title: 'How it is computed', type: 'string', width: 70 },
];

/** One row per invoice that moved or was open at either end: its lines reconcile on their own. */
export const detailColumns: Column[] = [
  { key: 'invoiceId', title: 'Invoice', type: 'string', width: 12 },
  { key: 'orgId', title: 'Org id', type: 'integer', width: 9 },
  { key: 'org', title: 'Org', type: 'string', width: 30 },
  { key: 'invoiceDate', title: 'Invoice date', type: 'date', width: 12 },
  { key: 'opening', title: 'Opening', type: 'money', width: 13 },
  { key: 'new', title: 'New', type: 'money', width: 12 },
  { key: 'found', title: 'Found, dated earlier', type: 'money', width: 12 },
  { key: 'lateFees', title: 'Late fees', type: 'money', width: 12 },
  { key: 'increases', title: 'Other increases', type: 'money', width: 12 },
  { key: 'decreases', title: 'Decreases', type: 'money', width: 12 },
  { key: 'decreasesApplied', title: 'Decreases: payments applied by this tool', type: 'money', width: 14 },
  { key: 'decreasesElsewhere', title: 'Decreases: elsewhere', type: 'money', width: 12 },
  { key: 'cancellations', title: 'Cancellations', type: 'money', width: 13 },
  { key: 'restorations', title: 'Restorations', type: 'money', width: 13 },
  { key: 'removed', title: 'Removed from the service', type: 'money', width: 12 },
  { key: 'closing', title: 'Closing', type: 'money', width: 13 },
  { key: 'appliedPayments', title: 'Payments applied by this tool (period)', type: 'money', width: 14 },
  { key: 'unknown', title: 'Balance unknown (held apart)', type: 'money', width: 12 },
];

/** The period line of a default month cut at the history's start (the page says so). */
export const SHORTENED = "Period (shortened: the month starts before the mirror's history)";

/** The one line of a roll-forward the mirror cannot give (no history yet). */
export const UNKNOWN_PERIOD = 'Period (no history: no figure)';
