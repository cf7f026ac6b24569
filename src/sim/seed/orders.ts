import type { Rng } from '../rng.js';
import { type SimRecord, type SimStatus, simStatuses } from '../store.js';
import { DAY, IdSequence, isoSecond, type SeedContext } from './common.js';
import { simProducts } from './names.js';

/** Order items: two years, ids rising with time, status by age. */
export function seedOrderItems(c: SeedContext, persons: SimRecord[], users: SimRecord[]): void {
  const { rng, t, scaled, anchor, start, span } = c;
  const orgName = (orgId: number) => String(t.Org.get(orgId)?.name ?? '');
  const itemIds = new IdSequence(500001, rng, 7);
  const itemCount = scaled(30000);
  const times: number[] = [];
  for (let i = 0; i < itemCount; i++) times.push(start + Math.floor(rng.next() * span));
  times.sort((a, b) => a - b);
  const recent: SimRecord[] = [];
  for (let i = 0; i < itemCount; i++) {
    const created = times[i] ?? start;
    const person = rng.pick(persons);
    const product = rng.pick(simProducts);
    const status = statusForAge(rng, (anchor - created) / DAY);
    const item: SimRecord = {
      id: itemIds.take(),
      c_currentStatusCodeId: status.code,
      c_currentStatusCodeName: status.name,
      c_org: orgName(person.OrgId as number),
      c_personNameFirst: person.nameFirst,
      c_personNameLast: person.nameLast,
      c_productName: product.name,
      c_productCategory: product.category,
      CreationTimestamp: isoSecond(created),
      CurrentStatusId: status.id,
      isNotModifiable: status.terminal,
      OrgId: person.OrgId,
      PersonId: person.id,
      ProductId: product.id,
    };
    const r = rng.next();
    if (r < 0.7) item.orderedBy = String(rng.pick(users).nameFirstLast);
    else if (r < 0.85) item.orderedBy = 'Online order';
    else if (r < 0.93) item.orderedBy = null;
    if (recent.length > 0 && rng.chance(0.04)) item['Parent~OrderItemId'] = rng.pick(recent).id;
    if (rng.chance(0.1)) item['Passport~OrderItemId'] = item.id;
    if (status.code !== 'ORD' && status.code !== 'SCH' && rng.chance(0.8)) {
      item.labAccessionNumber = `A${rng.int(10000000, 99999999)}`;
    }
    recent.push(item);
    if (recent.length > 50) recent.shift();
    t.OrderItem.insert(item);
  }
}

function status(code: string): SimStatus {
  const s = simStatuses.find((x) => x.code === code);
  if (s === undefined) throw new Error(`unknown sandbox status ${code}`);
  return s;
}

/** A plausible current status for an order item created `ageDays` ago. */
function statusForAge(rng: Rng, ageDays: number): SimStatus {
  if (ageDays > 30) {
    if (rng.chance(0.01)) return status(rng.pick(['COL', 'LAB', 'MRO', 'ORD']));
    const r = rng.next();
    return status(r < 0.85 ? 'CMP' : r < 0.95 ? 'CAN' : 'EXP');
  }
  if (ageDays < 1) return status(rng.pick(['ORD', 'ORD', 'SCH']));
  if (ageDays < 3) return status(rng.pick(['SCH', 'COL', 'LAB']));
  if (ageDays < 10) return status(rng.pick(['LAB', 'MRO', 'CMP', 'CMP']));
  return status(rng.pick(['CMP', 'CMP', 'CMP', 'MRO', 'CAN']));
}
