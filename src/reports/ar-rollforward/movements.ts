import { formatDate, localDateOf, parseInstant } from '../../dates.js';
import { heldAt } from '../../mirror/index.js';
import type { Row } from '../../render/types.js';
import type { CommonParams } from '../core/params.js';
import { asInteger, asText, toCents } from '../core/values.js';
import type { Bucket } from '../unpaid-invoices/buckets.js';
import { classify } from '../unpaid-invoices/classify.js';
import type { InvoiceRecord } from '../unpaid-invoices/queries.js';
import type { ArRollforwardOptions } from './options.js';

/** Where an invoice stands in the ageing at an instant (the ageing's own classification). */
type Kind = 'open' | 'void' | 'zero' | 'future' | 'unreadable' | 'unknown' | 'absent';
interface State {
  kind: Kind;
  /** Cents the ageing counts in its net total (0 unless open). */
  amount: number;
  /** The invoice's `lateFee` field, cents (0 unless open or at zero). */
  fee: number;
}

export type Version = InvoiceRecord & { valid_from: string; valid_to: string | null };

/** The movement lines, in integer cents. */
export interface Movement {
  opening: number;
  new: number;
  /** First seen in the period although dated before it: new to the mirror, not to the service. */
  found: number;
  /** The `lateFee` field's rise on an invoice in A/R. */
  lateFees: number;
  increases: number;
  decreases: number;
  cancellations: number;
  restorations: number;
  removed: number;
  /**
   * Held apart as "balance unknown": an invoice in A/R whose balance turned null or unreadable
   * leaves A/R owed by its last known amount (never a decrease, a payment or a credit), and
   * returns by that amount when it is read again (then negative).
   */
  unknown: number;
  closing: number;
}

export const movementKeys = [
  'opening',
  'new',
  'found',
  'lateFees',
  'increases',
  'decreases',
  'cancellations',
  'restorations',
  'removed',
  'unknown',
  'closing',
] as const;

export function blankMovement(): Movement {
  return {
    opening: 0,
    new: 0,
    found: 0,
    lateFees: 0,
    increases: 0,
    decreases: 0,
    cancellations: 0,
    restorations: 0,
    removed: 0,
    unknown: 0,
    closing: 0,
  };
}

/** opening + new + found + late fees + increases − decreases − cancellations + restorations − removed − balance unknown − closing: 0 when it reconciles. */
export function gap(m: Movement): number {
  return (
    m.opening +
    m.new +
    m.found +
    m.lateFees +
    m.increases -
    m.decreases -
    m.cancellations +
    m.restorations -
    m.removed -
    m.unknown -
    m.closing
  );
}

export interface InvoiceMovement extends Movement {
  id: string;
  orgId: number | null;
  org: string | null;
  invoiceDate: string | null;
}

/**
 * The ageing's reading of one invoice version at an instant: the report's own `classify` on that
 * version alone, aged to the instant's date in the zone, so the amounts summed here are the
 * amounts the ageing sums.
 */
export class AgeingReader {
  private readonly days = new Map<string, CommonParams>();

  constructor(
    private readonly common: CommonParams,
    private readonly opts: ArRollforwardOptions,
    private readonly buckets: Bucket[],
    private readonly scope: Set<number> | null,
    private readonly names: Map<number, string>,
  ) {}

  /** The ageing's parameters as of an instant: its date in the zone. */
  at(instant: string): CommonParams {
    let c = this.days.get(instant);
    if (c === undefined) {
      const ms = parseInstant(instant, 'UTC') as number;
      const asOf = localDateOf(ms, this.common.timezone);
      c = { ...this.common, asOf, asOfText: formatDate(asOf), asOfMs: ms };
      this.days.set(instant, c);
    }
    return c;
  }

  state(v: Version | null, instant: string): State {
    if (v === null) return { kind: 'absent', amount: 0, fee: 0 };
    const c = classify([v], this.scope, this.names, this.at(instant), this.opts, this.buckets);
    const open = c.open[0];
    if (open !== undefined) return { kind: 'open', amount: open.totalDue, fee: open.lateFee };
    if (c.voided.length > 0) return { kind: 'void', amount: 0, fee: 0 };
    if (c.future > 0) return { kind: 'future', amount: 0, fee: 0 };
    if (c.unknown.length > 0) return { kind: 'unknown', amount: 0, fee: 0 };
    if (c.unreadable > 0) return { kind: 'unreadable', amount: 0, fee: 0 };
    // Paid (or at zero): its lateFee field still counts, so a fee that reopens it is a late fee.
    return { kind: 'zero', amount: 0, fee: toCents(v.lateFee) ?? 0 };
  }
}

/**
 * Each invoice's way through the period, from the versions the mirror held: its state at `from`,
 * at each version that began in the period (and each end with no successor: gone from the
 * service), and at `to`. Each step's change of the amount the ageing counts falls in exactly one
 * line, so the lines add up to closing − opening by construction, invoice by invoice:
 * - open → open: the balance moved: an increase or a decrease;
 * - into open from cancelled, or from gone after it was seen: a restoration;
 * - into open otherwise: new (never counted before and not in A/R at `from`), else an increase
 *   (an existing invoice whose zero balance went up; the rise of its lateFee field a late fee);
 * - open → cancelled: a cancellation (its balance before it leaves A/R);
 * - open → gone (deleted in the service): removed;
 * - open → zero (paid), unreadable date or dated later: a decrease;
 * - open → balance unknown (null or unreadable): held apart by its last known amount (`unknown`),
 *   never a decrease; read again, that amount returns and the step is taken from it.
 */
export function invoiceMovements(
  versions: readonly Version[],
  from: string,
  to: string,
  reader: AgeingReader,
): InvoiceMovement[] {
  const byId = new Map<string, Version[]>();
  for (const v of versions) {
    const id = String(v.id);
    const list = byId.get(id) ?? [];
    list.push(v);
    byId.set(id, list);
  }
  const out: InvoiceMovement[] = [];
  for (const [id, list] of byId) {
    list.sort((a, b) => (a.valid_from < b.valid_from ? -1 : a.valid_from > b.valid_from ? 1 : 0));
    const m = walk(id, list, from, to, reader);
    if (movementKeys.some((k) => m[k] !== 0)) out.push(m);
  }
  return out;
}

function walk(id: string, list: Version[], from: string, to: string, reader: AgeingReader): InvoiceMovement {
  const points: { at: string; v: Version | null }[] = [
    { at: from, v: list.find((v) => heldAt(v, from)) ?? null },
  ];
  const starts = new Set(list.map((v) => v.valid_from));
  for (const v of list) {
    if (v.valid_from > from && v.valid_from <= to) points.push({ at: v.valid_from, v });
    if (v.valid_to !== null && v.valid_to > from && v.valid_to <= to && !starts.has(v.valid_to))
      points.push({ at: v.valid_to, v: null });
  }
  points.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  if ((points[points.length - 1] as { at: string }).at !== to)
    points.push({ at: to, v: list.find((v) => heldAt(v, to)) ?? null });
  const last = [...list].reverse().find((v) => v.valid_from <= to) ?? (list[0] as Version);
  const orgId = asInteger(last.OrgId);
  const m: InvoiceMovement = {
    ...blankMovement(),
    id,
    orgId,
    org: asText(last.c_org),
    invoiceDate: typeof last.date === 'string' ? last.date.slice(0, 10) : null,
  };
  const startDay = reader.at(from).asOfText;
  let prev = reader.state(points[0]?.v ?? null, from);
  m.opening = prev.amount;
  // The last state read before the balance turned unknown (its amount held apart).
  let held: State | null = null;
  // In A/R's world at `from` (counted, cancelled, or an existing invoice at zero): never "new".
  let known =
    prev.kind === 'open' ||
    prev.kind === 'void' ||
    prev.kind === 'zero' ||
    prev.kind === 'unreadable' ||
    prev.kind === 'unknown';
  let seen = prev.kind !== 'absent';
  // Dated before the period: when first seen in it, found (the service had it), not new.
  const early = m.invoiceDate !== null && m.invoiceDate < startDay;
  for (const p of points.slice(1)) {
    const next = reader.state(p.v, p.at);
    if (next.kind === 'unknown') {
      // Held apart by its last known amount: never a decrease, a payment or a credit.
      if (prev.kind === 'open') {
        m.unknown += prev.amount;
        held = prev;
      }
      seen = true;
      prev = next;
      continue;
    }
    if (prev.kind === 'unknown' && held !== null) {
      // Read again: the held amount returns, and the step goes on from the last known state.
      m.unknown -= held.amount;
      prev = held;
      held = null;
    }
    step(m, prev, next, known, seen, early);
    if (next.kind !== 'absent') seen = true;
    if (next.kind === 'open') known = true;
    prev = next;
  }
  m.closing = prev.amount;
  return m;
}

function step(m: Movement, prev: State, next: State, known: boolean, seen: boolean, early: boolean): void {
  if (next.kind === 'open') {
    if (prev.kind === 'open') {
      // The lateFee field's rise is a late fee; the rest of the change an increase or a decrease
      // (a fee and a payment between two observations: both, never their net).
      const fee = Math.max(0, next.fee - prev.fee);
      m.lateFees += fee;
      const delta = next.amount - prev.amount - fee;
      if (delta > 0) m.increases += delta;
      else m.decreases -= delta;
    } else if (prev.kind === 'void' || (prev.kind === 'absent' && seen)) m.restorations += next.amount;
    else if (known) {
      // Up from zero: the lateFee field's rise is a late fee (a fee on a paid invoice), never new.
      const fee = Math.max(0, Math.min(next.amount, next.fee - prev.fee));
      m.lateFees += fee;
      m.increases += next.amount - fee;
    } else if (early && !seen) m.found += next.amount;
    else m.new += next.amount;
    return;
  }
  if (prev.kind !== 'open') return;
  if (next.kind === 'void') m.cancellations += prev.amount;
  else if (next.kind === 'absent') m.removed += prev.amount;
  else m.decreases += prev.amount;
}

/** A signed amount as a movement: `increases` of a negative total is still a movement line. */
export function movementRow(m: InvoiceMovement, tool: number): Row {
  const toolPart = Math.max(0, Math.min(m.decreases, tool));
  return {
    invoiceId: m.id,
    orgId: m.orgId,
    org: m.org,
    invoiceDate: m.invoiceDate,
    opening: m.opening,
    new: m.new,
    found: m.found,
    lateFees: m.lateFees,
    increases: m.increases,
    decreases: m.decreases,
    decreasesApplied: toolPart,
    decreasesElsewhere: m.decreases - toolPart,
    cancellations: m.cancellations,
    restorations: m.restorations,
    removed: m.removed,
    unknown: m.unknown,
    closing: m.closing,
    appliedPayments: tool,
  };
}
