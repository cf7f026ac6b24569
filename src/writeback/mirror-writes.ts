import { UnauthorizedError } from '../api/index.js';
import { describeError } from '../errors.js';
import type { Logger } from '../log.js';
import { type Mirror, writePolicy } from '../mirror/index.js';
import type { ResourceName } from '../schema/index.js';
import type { Json } from './json.js';

/**
 * What write-back changes in the mirror after the service answered: records it made or read,
 * the org policy of an org it created, the soft deletion of a person it deleted. The mirror is
 * masked as a sync would mask it (the mirror's writer masks sensitive fields).
 */
export class MirrorWriter {
  constructor(
    private readonly mirror: Mirror,
    private readonly now: () => string,
    private readonly logger?: Logger,
  ) {}

  store(resource: ResourceName, records: unknown): Promise<void> {
    return this.storeAll([[resource, records]]);
  }

  /** Several resources' records in one transaction (one commit per write-back answer). */
  async storeAll(batches: [ResourceName, unknown][]): Promise<void> {
    const now = this.now();
    const rows = batches.map(([resource, records]) => {
      const list = Array.isArray(records) ? records : [];
      return [
        resource,
        list.filter((r): r is Json => typeof r === 'object' && r !== null && 'id' in r),
      ] as const;
    });
    if (rows.every(([, list]) => list.length === 0)) return;
    await this.mirror.write(async (w) => {
      for (const [resource, list] of rows) if (list.length > 0) await w.upsert(resource, list, { now });
    });
  }

  storePerson(rec: Json): Promise<void> {
    return this.storeAll([
      ['Person', [rec]],
      ['Staff', rec.staff],
      ['Applicant', rec.applicant],
      ['User', rec.user],
    ]);
  }

  /** The org, its vendors, and its rate policy when the body gave one (org_policy, source writeback). */
  async storeOrg(rec: Json, body: Json): Promise<void> {
    await this.store('Org', [rec]);
    await this.store('HsVendor', rec.hsVendor);
    const drug = body.rpMinDrug;
    const alc = body.rpMinAlc;
    const dot = body.rpDotRegistrationNumber;
    if (typeof rec.id !== 'number' || (drug === undefined && alc === undefined && dot === undefined)) return;
    const values = {
      org_id: rec.id,
      program: typeof dot === 'string' && dot !== '' ? 'DOT' : 'NON_DOT',
      agency: null,
      rp_min_drug: typeof drug === 'number' ? drug : null,
      rp_min_alc: typeof alc === 'number' ? alc : null,
      dot_registration_number: typeof dot === 'string' ? dot : null,
      parent_org_id: typeof body['Parent~OrgId'] === 'number' ? body['Parent~OrgId'] : null,
      source: 'writeback',
      updated_at: this.now(),
    };
    await this.mirror.db.transaction().execute((trx) => writePolicy(trx, values));
  }

  async softDeletePerson(id: number): Promise<void> {
    const now = this.now();
    await this.mirror.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('person')
        .set({ deleted_at: now })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .execute();
      for (const table of ['applicant', 'staff'] as const)
        await trx
          .updateTable(table)
          .set({ deleted_at: now })
          .where('PersonId', '=', id)
          .where('deleted_at', 'is', null)
          .execute();
    });
  }

  /** When the mirror found a person or applicant deleted (its own delete, or a sync); null: it is not. */
  async deletedAt(table: 'person' | 'applicant', id: number): Promise<string | null> {
    const row = await this.mirror.db
      .selectFrom(table)
      .select('deleted_at')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.deleted_at ?? null;
  }

  /**
   * Dollars of the payments on `invoice` a plan counted on before item `id` (the queued ones it names in
   * `counted`, and the rows above it in its file, queued by the same plan) that will not be sent
   * as things stand: held, failed or abandoned.
   */
  async countedNotSent(id: number, invoice: string, counted: number[]): Promise<number> {
    const db = this.mirror.db;
    const self = await db
      .selectFrom('outbox')
      .select(['file', 'created_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (self === undefined) return 0;
    const rows = await db
      .selectFrom('outbox')
      .select(['body'])
      .where('op', '=', 'payment')
      .where('id', '<', id)
      .where('state', 'in', ['held', 'failed', 'abandoned'])
      .where((eb) =>
        eb.or([
          ...(counted.length > 0 ? [eb('id', 'in', counted)] : []),
          eb.and([eb('file', '=', self.file), eb('created_at', '=', self.created_at)]),
        ]),
      )
      .execute();
    let sum = 0;
    for (const r of rows) {
      const body = JSON.parse(r.body) as Json;
      if (String(body.InvoiceId) === invoice) sum += Number(body.amountToPay ?? 0);
    }
    return Math.round(sum * 100) / 100;
  }

  /** A read after a change that succeeded: its failure does not undo the change. */
  async reread<T>(read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (err) {
      if (err instanceof UnauthorizedError) throw err;
      this.logger?.warn({ err: describeError(err) }, 're-read after a write failed');
      return undefined;
    }
  }
}
