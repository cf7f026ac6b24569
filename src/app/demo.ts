import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Config } from '../config/index.js';
import { today } from '../dates.js';
import { OhsError } from '../errors.js';
import { type Mirror, metaKeys, readMeta, writeMeta } from '../mirror/index.js';
import { type RunningSim, startSim } from '../sim/index.js';

/** The mirror given to `ohs demo` holds data of a real service: the demo leaves it alone. */
export class DemoMirrorInUseError extends OhsError {
  override name = 'DemoMirrorInUseError';
  override readonly exitCode = 2;
  constructor(message: string) {
    super('DEMO_MIRROR_IN_USE', message);
  }
}

/** The demo's own files unless told otherwise: never the configured (real) mirror or out/. */
export const demoDefaults = { db: 'demo.sqlite', out: 'demo-out' } as const;

/**
 * Marks the mirror as the demo's, or refuses it when something else filled it (a sync recorded
 * its base URL, or, in a file older than mirror_meta, ran at all). The sandbox listens on a
 * random port each time, so the marker, not the URL, recognises the demo's own file.
 */
export async function claimForDemo(mirror: Mirror): Promise<void> {
  if ((await readMeta(mirror.db, metaKeys.demoSandbox)) !== undefined) return;
  const source = await readMeta(mirror.db, metaKeys.sourceBaseUrl);
  const runs = await mirror.db
    .selectFrom('sync_run')
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirst();
  if (source !== undefined || Number(runs?.n ?? 0) > 0) {
    throw new DemoMirrorInUseError(
      `${mirror.location} holds data synced from ${source ?? 'a service'}, not from the demo's sandbox: the demo will not write into it (leave out --db to use ${demoDefaults.db}, or give another file)`,
    );
  }
  await writeMeta(mirror.db, metaKeys.demoSandbox, 'built-in sandbox (ohs demo)', true);
}

/**
 * The sandbox in-process on a free port, with a fresh token, and the configuration of the demo's
 * nightly job against it: its ids where the sandbox's data set starts them, a high request rate,
 * and every report format (the HTML pages and their dashboard are the best first look).
 */
export async function startDemo(
  base: Config,
  scale: number,
  outDir: string,
): Promise<{ sim: RunningSim; config: Config }> {
  const token = randomBytes(16).toString('hex');
  const sim = await startSim({
    port: 0,
    token,
    readonlyToken: randomBytes(16).toString('hex'),
    scale: scale,
    anchorDate: today('UTC'),
  });
  // The sandbox's invoice, staff and applicant ids start where its data set says; a real
  // user knows them from their own invoice numbers and sets sync.idStart once.
  const first = (t: { all(): readonly { id: number | string }[] }) => t.all()[0]?.id ?? 1;
  const config = {
    ...base,
    baseUrl: sim.url,
    token,
    api: { ...base.api, requestsPerSecond: 5000, concurrency: 8 },
    sync: {
      ...base.sync,
      idStart: {
        invoice: first(sim.tables.Invoice),
        staff: first(sim.tables.Staff),
        applicant: first(sim.tables.Applicant),
      },
    },
    // The HTML pages and their dashboard too: the best first look at what the reports hold.
    jobs: {
      ...base.jobs,
      outDir: outDir,
      formats: ['xlsx', 'csv', 'html'] as ('xlsx' | 'csv' | 'html')[],
    },
  };
  return { sim, config };
}

/** Rows (not deleted) of the tables the demo's closing lines count. */
export async function demoCounts(
  mirror: Mirror,
): Promise<Record<'orderitem' | 'invoice' | 'orgmonth' | 'user', number>> {
  const count = async (table: 'orderitem' | 'invoice' | 'orgmonth' | 'user') =>
    Number(
      (
        await mirror.db
          .selectFrom(table)
          .select(sql<number>`count(*)`.as('n'))
          .where('deleted_at', 'is', null)
          .executeTakeFirst()
      )?.n ?? 0,
    );
  return {
    orderitem: await count('orderitem'),
    invoice: await count('invoice'),
    orgmonth: await count('orgmonth'),
    user: await count('user'),
  };
}
