import { asOf } from '../../mirror/index.js';
import type { Row } from '../../render/types.js';
import { reportDb } from '../core/tables.js';
import type { ReportInput } from '../core/types.js';
import { listSome } from '../core/values.js';
import { type AgedItem, agedItems } from '../order-ageing/facts.js';
import { orderAgeingReport } from '../order-ageing/index.js';
import { orderAgeingOptions } from '../order-ageing/options.js';
import { setup } from '../order-ageing/setup.js';
import { type Change, evidence, type Severity, textOf } from './line.js';
import type { ChangesOptions } from './options.js';
import { inputAt } from './sides.js';

const REPORT = 'order-ageing';
const SHEET = 'Order ageing';
const flagRank: Record<string, number> = { OK: 0, WARN: 1, STUCK: 2 };

/**
 * Orders from the ageing's items at both ends, compared by id as they stream (in id order): the
 * start's items are kept (typed, a few fields each), the end's compared one by one and dropped.
 * Items newly STUCK or past their warn age (and those whose flag eased), items that left the open
 * list (completed, cancelled, expired, gone: their status at the end, read through the ageing's
 * own status mapping), and new items per employer and product family. Each item is counted once:
 * a new item already stuck (or past its warn age) is its flag's line, before "new", and not among
 * the new orders.
 */
export async function orderChanges(
  input: ReportInput<ChangesOptions>,
  sinceMs: number,
  end: string | undefined,
): Promise<Change[]> {
  const a = new Map<number, AgedItem>();
  for await (const item of agedItems(await inputAt(input, orderAgeingReport, sinceMs))) a.set(item.id, item);
  const ev = (id: number) => evidence(REPORT, SHEET, { orderItemId: id });
  const out: Change[] = [];
  const fresh = new Map<
    string,
    { org: string | null; orgId: number | null; family: string; ids: number[] }
  >();
  for await (const rb of agedItems(await inputAt(input, orderAgeingReport, undefined))) {
    const id = rb.id;
    const ra = a.get(id);
    a.delete(id);
    const fb = rb.flag ?? 'OK';
    // A new item already past its warn age or stuck is one line (new, stuck), not also a new order.
    if (ra === undefined && fb === 'OK') {
      const family = rb.family ?? 'generic';
      const k = `${rb.orgId ?? ''}\u0000${family}`;
      const g = fresh.get(k) ?? { org: rb.org, orgId: rb.orgId, family, ids: [] };
      g.ids.push(id);
      fresh.set(k, g);
    }
    const fa = ra === undefined ? 'OK' : (ra.flag ?? 'OK');
    if (fa === fb) continue;
    const up = (flagRank[fb] ?? 0) > (flagRank[fa] ?? 0);
    const severity: Severity = up ? (fb === 'STUCK' ? 'action' : 'worse') : 'better';
    out.push({
      severity,
      area: 'orders',
      kind: up ? (fb === 'STUCK' ? 'ORDER_STUCK' : 'ORDER_WARN') : 'ORDER_EASED',
      orgId: rb.orgId,
      org: rb.org,
      subject: String(id),
      before: ra === undefined ? 'new' : itemSaid(ra, fa),
      after: itemSaid(rb, fb),
      evidenceBefore: ra === undefined ? null : ev(id),
      evidenceAfter: ev(id),
      count: 1,
    });
  }
  for (const g of fresh.values())
    out.push({
      severity: 'new',
      area: 'orders',
      kind: 'ORDERS_NEW',
      orgId: g.orgId,
      org: g.org,
      subject: g.family,
      before: null,
      after: `${g.ids.length} new: ${listSome(g.ids.map(String), 10)}`,
      evidenceBefore: null,
      evidenceAfter: `${REPORT} · ${SHEET} · orderItemId ${listSome(g.ids.map(String), 10)}`,
      count: g.ids.length,
    });
  // What is left of the start's items is no longer among the end's.
  const stages = await stagesAt(input, [...a.keys()], end);
  for (const [id, ra] of a) {
    const s = stages.get(id);
    const kind =
      s === undefined
        ? 'ORDER_GONE'
        : s.stage === 'COMPLETE'
          ? 'ORDER_COMPLETED'
          : s.stage === 'CANCELLED'
            ? 'ORDER_CANCELLED'
            : 'ORDER_CLOSED';
    out.push({
      severity: kind === 'ORDER_COMPLETED' ? 'better' : 'changed',
      area: 'orders',
      kind,
      orgId: ra.orgId,
      org: ra.org,
      subject: String(id),
      before: itemSaid(ra, ra.flag ?? 'OK'),
      after: s === undefined ? 'not in the mirror' : `${s.status ?? 'no status'} (${s.stage})`,
      evidenceBefore: ev(id),
      evidenceAfter: s === undefined ? null : `mirror · orderitem · id ${id} (not among the open items)`,
      count: 1,
    });
  }
  return out;
}

function itemSaid(r: AgedItem, flag: string): string {
  return `${r.status ?? 'no status'}, ${flag}`;
}

/**
 * The stage at `end` (undefined: now) of items that left the ageing's open list, by the ageing's
 * own status mapping (codes first, then names; its options over the defaults); an item the mirror
 * no longer holds has none.
 */
async function stagesAt(
  input: ReportInput<ChangesOptions>,
  ids: readonly number[],
  end: string | undefined,
): Promise<Map<number, { stage: string; status: string | null }>> {
  const out = new Map<number, { stage: string; status: string | null }>();
  if (ids.length === 0) return out;
  const own = new Set(Object.keys(orderAgeingOptions.shape));
  const parsed = orderAgeingOptions.safeParse(
    Object.fromEntries(Object.entries(input.params.options).filter(([k]) => own.has(k))),
  );
  const st = setup(parsed.success ? parsed.data : orderAgeingOptions.parse({}));
  const db = reportDb(input.db);
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await db
      .selectFrom(asOf(db, 'orderitem', end, 'o'))
      .select(['o.id', 'o.c_currentStatusCodeName', 'o.c_currentStatusCodeId', 'o.deleted_at'])
      .where('o.id', 'in', chunk)
      .where('o.deleted_at', 'is', null)
      .execute();
    for (const r of rows) {
      const status = textOf(r.c_currentStatusCodeName as Row[string]);
      const code = textOf(r.c_currentStatusCodeId as Row[string]);
      const norm = (s: string | null) => (s === null ? '' : s.trim().toLowerCase());
      const mapped = st.codes.get(norm(code)) ?? st.mapping.get(norm(status));
      out.set(Number(r.id), { stage: mapped?.stage ?? 'OTHER', status });
    }
  }
  return out;
}
