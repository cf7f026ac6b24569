import type { Chart } from '../../render/html/charts.js';
import {
  count,
  countFigure,
  level,
  money,
  palette,
  plural,
  type SummaryBuilder,
} from '../../render/html/summary.js';
import { KINDS } from './kinds.js';
import type { AtRiskProduct, KindCount } from './product.js';
import { kindWords } from './words.js';

const emptyProduct: AtRiskProduct = {
  employers: 0,
  atRisk: 0,
  overdue: 0,
  assumed: 0,
  none: 0,
  kinds: new Map(),
  joinedWarnings: 0,
};

/**
 * The accounts-at-risk page's summary, from the report's typed product (its employers, each
 * kind's, the joined reports' warnings), never a sheet by its name: Action needed when an
 * employer shows a kind of risk on measured figures; needs attention when a kind rests on an
 * assumed rate, an employer has no compliance row or one on an assumed rate (a gap: never OK
 * over it), or the joined reports warned.
 */
export function accountsAtRiskHtml(): SummaryBuilder<AtRiskProduct> {
  return {
    onRow() {},
    build(product) {
      const { employers, atRisk, overdue, assumed, none, kinds, joinedWarnings } = product ?? emptyProduct;
      const measured = [...kinds.values()].some((c) => c.count > c.assumed);
      const onAssumed = [...kinds.values()].some((c) => c.assumed > 0);
      const problems = [
        ...Object.values(KINDS).flatMap((k) => {
          const c = kinds.get(k);
          if (c === undefined || c.count === 0) return [];
          return [
            `${count(c.count)} ${k}${c.assumed === 0 ? '' : ` (${c.assumed === c.count ? 'all' : count(c.assumed)} on an assumed rate)`}`,
          ];
        }),
        ...(assumed > 0 ? [`${plural(assumed, 'employer')} scored on an assumed rate`] : []),
        ...(none > 0 ? [`${plural(none, 'employer')} with no compliance row (not measured)`] : []),
        ...(joinedWarnings > 0 ? [`${plural(joinedWarnings, 'warning')} of the joined reports`] : []),
      ];
      return {
        status: level(measured, onAssumed || assumed > 0 || none > 0),
        problems,
        counts: Object.values(KINDS).map((k) => ({
          group: 'kind',
          status: k,
          count: kinds.get(k)?.count ?? 0,
          assumed: kinds.get(k)?.assumed ?? 0,
        })),
        figures: [
          { label: 'Employers', value: count(employers) },
          { label: 'At risk', value: count(atRisk) },
          // Each kind the number alone; what of it rests on an assumed rate is said under it.
          ...Object.values(KINDS).map((k) =>
            countFigure(k, kinds.get(k)?.count ?? 0, kinds.get(k)?.assumed ?? 0),
          ),
          { label: 'Oldest bucket, employers at risk', value: money(overdue) },
        ],
        charts: [kindChart(kinds)],
      };
    },
  };
}

/** Employers per kind of risk, the part resting on an assumed rate pale. */
function kindChart(kinds: ReadonlyMap<string, KindCount>): Chart {
  const shown = Object.values(KINDS).map((k) => kindWords[k] ?? k);
  const values = Object.values(KINDS).flatMap((k) => {
    const c = kinds.get(k) ?? { count: 0, assumed: 0 };
    return [
      { kind: kindWords[k] ?? k, basis: 'measured', employers: c.count - c.assumed },
      { kind: kindWords[k] ?? k, basis: 'assumed rate', employers: c.assumed },
    ];
  });
  const said = Object.values(KINDS)
    .map((k) => {
      const c = kinds.get(k) ?? { count: 0, assumed: 0 };
      return `${kindWords[k] ?? k}: ${plural(c.count, 'employer')}${c.assumed === 0 ? '' : `, ${count(c.assumed)} on an assumed rate`}`;
    })
    .join('; ');
  return {
    id: 'chart-kinds',
    title: 'Employers per kind of risk',
    description: `${said}. An employer may show several kinds.`,
    spec: {
      data: { values },
      width: 320,
      height: { step: 24 },
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'kind', type: 'nominal', sort: shown, title: null },
        x: { field: 'employers', type: 'quantitative', title: 'employers', stack: 'zero' },
        color: { value: palette.vermillion },
        opacity: {
          field: 'basis',
          type: 'ordinal',
          sort: ['measured', 'assumed rate'],
          scale: { domain: ['measured', 'assumed rate'], range: [1, 0.4] },
          title: 'rate',
        },
        order: { field: 'basis', sort: 'descending' },
      },
    },
  };
}
