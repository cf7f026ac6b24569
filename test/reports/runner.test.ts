import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { boolOption, intOption } from '../../src/reports/core/params.js';
import { defineReports } from '../../src/reports/core/runner.js';
import type { ReportDeclaration, ReportInput } from '../../src/reports/core/types.js';
import { reports } from '../../src/reports/index.js';
import { engines } from '../helpers/engines.js';
import { params, policy, SYNC_TIME, syncState, tempMirrors, upsert } from './fixture.js';

/**
 * The runner (src/reports/core/runner.ts) reads any declaration: a report declared here, on a real
 * mirror, gets its options parsed, unknown options warned, `--org` widened to child orgs, org
 * names read and its About lines set around the last sync of its streams, without code of its own.
 */
const probeOptions = z.object({
  count: intOption(1, 10).default(1),
  includeChildren: boolOption().default(false),
});

function probe() {
  const seen: ReportInput<z.output<typeof probeOptions>>[] = [];
  const declaration: ReportDeclaration<typeof probeOptions, 'probe'> = {
    name: 'probe',
    title: 'Probe',
    description: 'Lists the orgs of its scope.',
    options: probeOptions,
    streams: ['invoice', 'orgmonth'],
    async build(input) {
      seen.push(input);
      const ids = input.scope === null ? [...input.names.keys()] : [...input.scope];
      return {
        detail: {
          name: 'Orgs',
          columns: [{ key: 'orgId', title: 'Org id', type: 'integer' }],
          rows: ids.sort((a, b) => a - b).map((orgId) => ({ orgId })),
        },
        summaries: () => [],
        warnings: () => [`${ids.length} org(s)`],
        about: () => ({ method: [['Method', 'one row per org']], results: [['Orgs', String(ids.length)]] }),
      };
    },
    async trend(input, ends) {
      seen.push(input);
      return ends.map((e) => ({ monthEnd: e.instant, orgs: input.opts.count }));
    },
    html: () => ({
      onRow() {},
      build: () => ({ status: 'ok', figures: [{ label: 'Probe', value: 'yes' }], charts: [] }),
    }),
  };
  const other: ReportDeclaration<z.ZodObject, 'other'> = {
    name: 'other',
    title: 'Other',
    description: 'Has an option of its own.',
    options: z.object({ otherOption: intOption(0, 9).optional() }),
    streams: [],
    build: () => Promise.reject(new Error('not run')),
  };
  const [report, otherReport] = defineReports<'probe' | 'other'>([declaration, other]);
  if (report === undefined || otherReport === undefined) throw new Error('no report defined');
  return { report, otherReport, declaration, seen };
}

describe.each(engines)('%s', (engine) => {
  const mirror = tempMirrors(engine);

  it('parses the options by the schema, leaves other reports’ options alone and warns of unknown ones', async () => {
    const m = await mirror();
    const { report, seen } = probe();
    expect(report.options).toEqual(['count', 'includeChildren']);
    const result = await report.run({
      db: m.db,
      params: params('2025-06-30', { count: '3', otherOption: 2, colour: 'red' }),
    });
    expect(seen[0]?.opts).toEqual({ count: 3, includeChildren: false });
    expect(result.warnings()).toEqual(['Option colour is not an option of any report: ignored', '0 org(s)']);
    await expect(
      report.run({ db: m.db, params: params('2025-06-30', { count: 'lots' }) }),
    ).rejects.toMatchObject({ code: 'REPORT_PARAM_INVALID', param: 'options.count' });
  });

  it('widens the orgs given to every descendant with includeChildren, and to none without it', async () => {
    const m = await mirror();
    await policy(m, [
      { org_id: 1 },
      { org_id: 2, parent_org_id: 1 },
      { org_id: 3, parent_org_id: 2 },
      { org_id: 4 },
    ]);
    await upsert(m, 'Invoice', [
      { id: 'a', OrgId: 1, c_org: 'Parent Co', balance: 1 },
      { id: 'b', OrgId: 4, c_org: 'Other Co', balance: 1 },
    ]);
    const { report, seen } = probe();
    await report.run({ db: m.db, params: params('2025-06-30', { includeChildren: true }, { orgIds: [1] }) });
    await report.run({ db: m.db, params: params('2025-06-30', {}, { orgIds: [1] }) });
    await report.run({ db: m.db, params: params('2025-06-30') });
    expect(seen.map((s) => (s.scope === null ? null : [...s.scope].sort()))).toEqual([[1, 2, 3], [1], null]);
    expect([...(seen[2]?.names ?? [])].sort()).toEqual([
      [1, 'Parent Co'],
      [4, 'Other Co'],
    ]);
  });

  it('sets the About lines: the report’s method, the last sync of each declared stream, its results', async () => {
    const m = await mirror();
    await syncState(m, 'invoice', SYNC_TIME);
    const { report } = probe();
    const result = await report.run({ db: m.db, params: params('2025-06-30') });
    expect(result.about()).toEqual([
      ['Method', 'one row per org'],
      ['Last sync of invoice', `${SYNC_TIME} (last full pass: ${SYNC_TIME})`],
      ['Last sync of orgmonth', 'never (last full pass: never)'],
      ['Orgs', '0'],
    ]);
  });

  it('hands on the declared HTML page summary; a report declaring none has none (its page: the tables)', () => {
    const { report, otherReport, declaration } = probe();
    expect(report.html).toBe(declaration.html);
    expect(report.html?.().build().figures).toEqual([{ label: 'Probe', value: 'yes' }]);
    expect(otherReport.html).toBeUndefined();
    // Every report of the registry declares its page's summary in its folder (html.ts).
    expect(reports.filter((r) => r.html === undefined).map((r) => r.name)).toEqual([]);
  });

  it('reads a declared trend with the same checked options and scope as the report', async () => {
    const m = await mirror();
    const { declaration, seen } = probe();
    const ends = [{ day: { year: 2025, month: 5, day: 31 }, instant: '2025-05-31T23:59:59.999Z' }];
    expect(
      await defineReports([declaration])[0]?.trend(
        { db: m.db, params: params('2025-06-30', { count: 4 }, { orgIds: [7] }) },
        ends,
      ),
    ).toEqual([{ monthEnd: '2025-05-31T23:59:59.999Z', orgs: 4 }]);
    expect(seen[0]?.scope).toEqual(new Set([7]));
    const noTrend = defineReports([{ ...declaration, trend: undefined }])[0];
    expect(await noTrend?.trend({ db: m.db, params: params('2025-06-30') }, ends)).toEqual([]);
  });
});
