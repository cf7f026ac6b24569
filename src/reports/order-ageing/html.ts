import { count, level, palette, type SummaryBuilder } from '../../render/html/summary.js';
import type { Row } from '../../render/types.js';
import { ageBuckets } from './classify.js';
import type { AgeingProduct } from './summary.js';
import { stageWords } from './words.js';

/** Rows of the stuck list shown first; the rest are in the detail table and the CSV. */
const STUCK_SHOWN = 100;

/**
 * The summary of the order ageing page (docs/html-reports.md): open, stuck and warning counts,
 * the stuck orders first (kept as the detail streams), and open orders by stage and time in
 * status, from its typed product (each status's counts by time in status), never a sheet by name.
 */
export function orderAgeingHtml(): SummaryBuilder<AgeingProduct> {
  // The stuck orders first, kept as the detail streams (the CSV's rows).
  const stuck: Row[] = [];
  return {
    onRow(row) {
      if (row.flag === 'STUCK' && stuck.length < STUCK_SHOWN) stuck.push(row);
    },
    build(facts) {
      // Its time-in-status buckets (those of the By status sheet's columns), from the product.
      const ageColumns: { key: string; label: string }[] = ageBuckets.map((b) => ({
        key: b.key,
        label: b.label,
      }));
      const stages = new Map<string, Record<string, number>>();
      // Orders whose time in status is not known (no bucket counts them) are drawn as such.
      const unknown = { key: 'unknownTimeInStatus', label: 'unknown' };
      for (const r of facts?.statuses ?? []) {
        const stage = r.stage;
        const s = stages.get(stage) ?? {};
        let bucketed = 0;
        for (const { key } of ageColumns) {
          const n = r.buckets.get(key) ?? 0;
          s[key] = (s[key] ?? 0) + n;
          bucketed += n;
        }
        s[unknown.key] = (s[unknown.key] ?? 0) + Math.max(0, r.count - bucketed);
        stages.set(stage, s);
      }
      if ([...stages.values()].some((s) => (s[unknown.key] ?? 0) > 0)) ageColumns.push(unknown);
      const values = [...stages.entries()].flatMap(([stage, s]) =>
        ageColumns.map(({ key, label }, i) => ({
          stage: stageWords[stage] ?? stage,
          age: label,
          order: i,
          orders: s[key] ?? 0,
        })),
      );
      // The figures and the verdict from the report's typed figures (never the Total row by its label).
      const open = facts?.open ?? 0;
      const stuckCount = facts?.stuck ?? 0;
      const warnCount = facts?.warn ?? 0;
      const unknownTime = facts?.unknownTimeInStatus ?? 0;
      const oldest = facts?.oldestAgeHours ?? null;
      const problems = [
        ...(stuckCount > 0 ? [`${count(stuckCount)} stuck`] : []),
        ...(warnCount > 0 ? [`${count(warnCount)} past their stage's warning age`] : []),
        ...(unknownTime > 0
          ? [`${count(unknownTime)} with an unknown time in status (not measured; flagged by their age)`]
          : []),
      ];
      return {
        status: level(stuckCount > 0, warnCount > 0 || unknownTime > 0),
        counts: [
          ...(
            [
              ['STUCK', stuckCount],
              ['WARN', warnCount],
              ['OK', open - stuckCount - warnCount],
            ] as const
          ).map(([status, n]) => ({ group: 'flag', status, count: n, assumed: 0 })),
          { group: 'time in status', status: 'unknown', count: unknownTime, assumed: 0 },
        ],
        problems,
        figures: [
          { label: 'Open orders', value: count(open) },
          { label: 'Stuck', value: count(stuckCount) },
          { label: 'Warning', value: count(warnCount) },
          { label: 'Time in status unknown', value: count(unknownTime) },
          {
            label: 'Oldest (days)',
            value: ((oldest ?? 0) / 24).toFixed(1),
          },
        ],
        charts: [
          {
            id: 'chart-stages',
            title: 'Open orders by stage and time in status',
            description: `Open orders per stage, split by time in their status: ${[...stages.entries()]
              .map(
                ([stage, s]) =>
                  `${stageWords[stage] ?? stage} ${ageColumns.map(({ key, label }) => `${label} ${s[key] ?? 0}`).join(' ')}`,
              )
              .join('; ')}.`,
            spec: {
              data: { values },
              width: 320,
              height: { step: 22 },
              mark: { type: 'bar' },
              encoding: {
                y: { field: 'stage', type: 'nominal', sort: null, title: null },
                x: { field: 'orders', type: 'quantitative', title: 'open orders' },
                color: {
                  field: 'age',
                  type: 'ordinal',
                  sort: ageColumns.map((a) => a.label),
                  scale: {
                    domain: ageColumns.map((a) => a.label),
                    range: ageColumns.map((a, n) =>
                      a.key === unknown.key ? palette.grey : ageColours[n % ageColours.length],
                    ),
                  },
                  title: 'time in status',
                },
                order: { field: 'order' },
              },
            },
          },
        ],
        first: { title: `Stuck orders (${count(stuckCount)})`, rows: stuck, more: stuckCount - stuck.length },
      };
    },
  };
}

const ageColours = [
  palette.sky,
  palette.blue,
  palette.green,
  palette.yellow,
  palette.orange,
  palette.vermillion,
  palette.purple,
];
