import { DAY } from '../dates.js';
import type { Rng } from './rng.js';
import { simProducts } from './seed.js';
import type { SimRecord, SimStatus, SimTables } from './store.js';

/** An order item's status change made by the sandbox (kept so tests can check status history). */
export interface StatusMove {
  orderItemId: number;
  fromStatusId: number;
  toStatusId: number;
  at: string;
}

export interface MutationSummary {
  inserted: number;
  moved: number;
  deleted: number;
  paid: number;
  other: number;
}

const next: Record<string, string[]> = {
  ORD: ['SCH', 'SCH', 'CAN'],
  SCH: ['COL', 'COL', 'EXP'],
  COL: ['LAB'],
  LAB: ['MRO', 'CMP'],
  MRO: ['CMP'],
};

/**
 * Live changes of the data while clients page through it: new order items above the highest id,
 * status moves, deletions anywhere in the id range, invoices paid, users and staff added and
 * removed, OrgMonth counts raised. Each step makes `size` changes of the main kinds.
 */
export class Mutator {
  readonly moves: StatusMove[] = [];
  readonly deleted: { resource: string; id: number | string; at: string }[] = [];

  constructor(
    private readonly t: SimTables,
    private readonly statuses: readonly SimStatus[],
    private readonly rng: Rng,
  ) {}

  step(size: number, now = new Date()): MutationSummary {
    const at = `${now.toISOString().slice(0, 19)}Z`;
    const summary: MutationSummary = { inserted: 0, moved: 0, deleted: 0, paid: 0, other: 0 };
    this.insertItems(size, at, summary);
    this.moveStatuses(size, at, summary);
    this.deleteItems(size, at, summary);
    this.payInvoices(size, summary);
    this.smallChanges(now, at, summary);
    return summary;
  }

  /** New order items, above the highest id (with gaps), copying a recent item's org and person. */
  private insertItems(size: number, at: string, summary: MutationSummary): void {
    const rng = this.rng;
    const items = this.t.OrderItem;
    const ordered = this.byCode('ORD');
    for (let i = 0; i < size; i++) {
      const template = items.all()[items.size - 1 - rng.int(0, Math.min(50, items.size - 1))];
      if (template === undefined) break;
      const product = rng.pick(simProducts);
      const id = Number(items.maxId() ?? 500000) + rng.int(1, 3);
      items.insert({
        id,
        c_currentStatusCodeId: ordered.code,
        c_currentStatusCodeName: ordered.name,
        c_org: template.c_org,
        c_personNameFirst: template.c_personNameFirst,
        c_personNameLast: template.c_personNameLast,
        c_productName: product.name,
        c_productCategory: product.category,
        CreationTimestamp: at,
        CurrentStatusId: ordered.id,
        isNotModifiable: false,
        OrgId: template.OrgId,
        PersonId: template.PersonId,
        ProductId: product.id,
        orderedBy: 'Online order',
      });
      summary.inserted++;
    }
  }

  /** Status moves of open items. */
  private moveStatuses(size: number, at: string, summary: MutationSummary): void {
    const rng = this.rng;
    const items = this.t.OrderItem;
    const open = items.all().filter((r) => r.isNotModifiable === false);
    for (let i = 0; i < size && open.length > 0; i++) {
      const item = open.splice(rng.int(0, open.length - 1), 1)[0];
      if (item === undefined) break;
      const options = next[String(item.c_currentStatusCodeId)];
      if (options === undefined) continue;
      const to = this.byCode(rng.pick(options));
      this.moves.push({
        orderItemId: item.id as number,
        fromStatusId: item.CurrentStatusId as number,
        toStatusId: to.id,
        at,
      });
      items.update(item.id, {
        CurrentStatusId: to.id,
        c_currentStatusCodeId: to.code,
        c_currentStatusCodeName: to.name,
        isNotModifiable: to.terminal,
      });
      summary.moved++;
    }
  }

  /** Deletions anywhere in the id range. */
  private deleteItems(size: number, at: string, summary: MutationSummary): void {
    const rng = this.rng;
    const items = this.t.OrderItem;
    for (let i = 0; i < Math.ceil(size / 5); i++) {
      const victim = items.all()[rng.int(0, items.size - 1)];
      if (victim === undefined) break;
      items.delete(victim.id);
      this.deleted.push({ resource: 'OrderItem', id: victim.id, at });
      summary.deleted++;
    }
  }

  /** Invoices paid in full. */
  private payInvoices(size: number, summary: MutationSummary): void {
    const rng = this.rng;
    const unpaid = this.t.Invoice.all().filter((r) => Number(r.balance) > 0);
    for (let i = 0; i < Math.ceil(size / 2) && unpaid.length > 0; i++) {
      const inv = unpaid.splice(rng.int(0, unpaid.length - 1), 1)[0];
      if (inv === undefined) break;
      this.t.Invoice.update(inv.id, { balance: 0 });
      summary.paid++;
    }
  }

  /** Smaller changes: a new invoice, a user suspended, a user and a staff record added or removed, picks recorded on a current OrgMonth row. */
  private smallChanges(now: Date, at: string, summary: MutationSummary): void {
    const rng = this.rng;
    const lastInvoice = this.t.Invoice.all()[this.t.Invoice.size - 1];
    if (lastInvoice !== undefined && rng.chance(0.5)) {
      this.t.Invoice.insert({
        ...lastInvoice,
        id: String(Number(this.t.Invoice.maxId() ?? lastInvoice.id) + rng.int(1, 4)),
        balance: rng.money(40, 900),
        date: at.slice(0, 10),
        dateDue: new Date(now.getTime() + 30 * DAY).toISOString().slice(0, 10),
        lateFee: null,
      });
      summary.other++;
    }
    const user = this.pick(this.t.User.all());
    if (user !== undefined) {
      this.t.User.update(user.id, { isSuspended: true, status: 'suspended' });
      summary.other++;
    }
    if (rng.chance(0.5)) {
      const gone = this.pick(this.t.User.all());
      if (gone !== undefined) {
        this.t.User.delete(gone.id);
        this.deleted.push({ resource: 'User', id: gone.id, at });
      }
    } else if (user !== undefined) {
      const id = Number(this.t.User.maxId() ?? 0) + rng.int(1, 3);
      this.t.User.insert({
        ...user,
        id,
        email: `new.user.${id}@users.example`,
        // A copy of the user suspended above: an invited user is neither suspended nor logged in yet.
        isInvited: true,
        isSuspended: false,
        status: 'invited',
        lastLoginAt: null,
      });
    }
    const staff = this.pick(this.t.Staff.all());
    if (staff !== undefined) {
      const id = Number(this.t.Staff.maxId() ?? 0) + rng.int(1, 5);
      this.t.Staff.insert({ ...staff, id, dateOfHire: at.slice(0, 10), dateOfTermination: null });
      summary.other++;
    }
    const om =
      this.t.OrgMonth.all()[this.t.OrgMonth.size - 1 - rng.int(0, Math.min(200, this.t.OrgMonth.size - 1))];
    if (om !== undefined) {
      this.t.OrgMonth.update(om.id, {
        countPickedDrug: Number(om.countPickedDrug ?? 0) + 1,
        countPickedDrugResult: Number(om.countPickedDrugResult ?? 0) + 1,
      });
      summary.other++;
    }
  }

  private pick(rows: readonly SimRecord[]): SimRecord | undefined {
    return rows.length === 0 ? undefined : rows[this.rng.int(0, rows.length - 1)];
  }

  private byCode(code: string): SimStatus {
    const s = this.statuses.find((x) => x.code === code);
    if (s === undefined) throw new Error(`unknown sandbox status ${code}`);
    return s;
  }
}
