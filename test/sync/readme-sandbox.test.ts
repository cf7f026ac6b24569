import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { runOhs } from '../helpers/cli.js';
import { rows, withMirror } from '../helpers/mirror.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';

/**
 * The sandbox at its default size, configured as the README's "Point it at your service" says
 * (config/local.json with requestsPerSecond 2000 and the idStart values): the first `ohs sync`
 * mirrors every record, a second finds nothing new, and a stream stopped at a bound
 * (sync.probeMaxIds) is recorded incomplete: `ohs status` shows it and `status --check` answers
 * WARNING (exit 1) until a run completes it.
 */
const sim = withSim();
const dir = mkdtempSync(join(tmpdir(), 'ohs-readme-sandbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const readme = {
  api: { requestsPerSecond: 2000 },
  sync: { idStart: { invoice: 240001, staff: 6001, applicant: 9001 } },
};
const env = () => ({ OHS_BASE_URL: sim().url, OHS_TOKEN: WRITE_TOKEN, OHS_DB: '', OHS_LOG_LEVEL: '' });
const db = join(dir, 'ohs.sqlite');

async function inserted(run: number): Promise<Record<string, number>> {
  return withMirror(db, async (m) =>
    Object.fromEntries(
      (
        await rows<{ stream: string; inserted: number }>(
          m,
          sql`SELECT stream, inserted FROM sync_stream_run WHERE run_id = ${run}`,
        )
      ).map((r) => [r.stream, Number(r.inserted)]),
    ),
  );
}

const lastRun = () =>
  withMirror(db, async (m) =>
    Number((await rows<{ id: number }>(m, sql`SELECT max(id) AS id FROM sync_run`))[0]?.id),
  );

describe('the sandbox as the README configures it', () => {
  it('is mirrored whole by the first sync; a stream stopped at a bound makes status --check WARNING', async () => {
    mkdirSync(join(dir, 'config'));
    writeFileSync(join(dir, 'config', 'local.json'), JSON.stringify(readme));
    const first = await runOhs(['sync'], { cwd: dir, env: env(), timeoutMs: 280_000 });
    expect(first.code, first.stderr).toBe(0);
    const t = sim().tables;
    const counts = await withMirror(db, async (m) =>
      Object.fromEntries(
        await Promise.all(
          ['invoice', 'staff', 'applicant'].map(async (table) => [
            table,
            Number((await rows<{ n: number }>(m, sql`SELECT count(*) AS n FROM ${sql.table(table)}`))[0]?.n),
          ]),
        ),
      ),
    );
    expect(counts).toEqual({
      invoice: t.Invoice.all().length,
      staff: t.Staff.all().length,
      applicant: t.Applicant.all().length,
    });
    expect(first.stdout).not.toMatch(/incomplete/i);

    const second = await runOhs(['sync'], { cwd: dir, env: env(), timeoutMs: 280_000 });
    expect(second.code, second.stderr).toBe(0);
    const found = await inserted(await lastRun());
    expect(
      Object.values(found).reduce((a, b) => a + b, 0),
      JSON.stringify(found),
    ).toBe(0);
    const ok = await runOhs(['status', '--check'], { cwd: dir, env: env() });
    expect(ok.code, ok.stdout).toBe(0);

    // Ten new staff above the top; a run allowed to probe 3 ids stops there, still finding records.
    const model = t.Staff.all().at(-1) as Record<string, unknown>;
    const top = Number(t.Staff.maxId());
    for (let k = 1; k <= 10; k++) t.Staff.insert({ ...model, id: top + k });
    writeFileSync(
      join(dir, 'bounded.json'),
      JSON.stringify({ ...readme, sync: { ...readme.sync, probeMaxIds: 3 } }),
    );
    const bounded = await runOhs(['sync', 'staff', '--config', 'bounded.json'], { cwd: dir, env: env() });
    expect(bounded.code, bounded.stderr).toBe(0);
    expect(bounded.stdout).toMatch(/staff.*incomplete/i);
    expect(bounded.stdout).toMatch(/ohs sync again/);
    const warned = await runOhs(['status', '--check'], { cwd: dir, env: env() });
    expect(warned.stdout).toMatch(/^OHS WARNING - staff incomplete: ids above \d+ not asked/);
    expect(warned.code).toBe(1);
    const status = await runOhs(['status'], { cwd: dir, env: env() });
    expect(status.stdout).toMatch(/INCOMPLETE staff:/);
    expect(status.stdout).toMatch(/last success: /);

    // The next run goes on from there and completes the stream: OK again, every staff mirrored.
    const again = await runOhs(['sync', 'staff'], { cwd: dir, env: env() });
    expect(again.code, again.stderr).toBe(0);
    expect((await inserted(await lastRun())).staff).toBe(7);
    const clear = await runOhs(['status', '--check'], { cwd: dir, env: env() });
    expect(clear.code, clear.stdout).toBe(0);
  });
});
