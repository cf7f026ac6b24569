import { visibleText } from '../../util/printable.js';
import { RenderOptionsError } from '../errors.js';
import { esc } from './escape.js';

/**
 * Charts as inline SVG, rendered when the page is written (no script in the page): Vega-Lite
 * specifications compiled to Vega and rendered headless by vega's `View.toSVG()` (no browser, no
 * canvas; text widths estimated). Both are ESM packages loaded on first use only, so no other
 * command pays for them (see rolldown.config.mjs: they stay outside the CLI bundle).
 */

/** Okabe–Ito: distinguishable with the common colour-vision deficiencies, and in greyscale print. */
export const palette = {
  blue: '#0072B2',
  orange: '#E69F00',
  sky: '#56B4E9',
  green: '#009E73',
  yellow: '#F0E442',
  vermillion: '#D55E00',
  purple: '#CC79A7',
  grey: '#999999',
} as const;

type VegaModule = typeof import('vega');
type VegaLiteModule = typeof import('vega-lite');
let modules: Promise<[VegaModule, VegaLiteModule]> | undefined;
const load = () => {
  modules ??= Promise.all([import('vega'), import('vega-lite')]);
  return modules;
};

/** A Vega-Lite specification (the subset used here; checked by vega-lite when compiled). */
export type ChartSpec = Record<string, unknown>;

export interface Chart {
  id: string;
  title: string;
  /** The text alternative: what the chart says, in one or two sentences. */
  description: string;
  spec: ChartSpec;
}

const config = {
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  background: null,
  view: { stroke: null },
  axis: { labelFontSize: 11, titleFontSize: 11, labelLimit: 180 },
  legend: { labelFontSize: 11, titleFontSize: 11, orient: 'bottom' },
  range: { category: Object.values(palette) },
};

/**
 * Renders a chart to an `<svg>` element string with `role="img"`, a `<title>` and a `<desc>`
 * (the text alternative), no script, no external reference: data is inline and the loader
 * refuses every URL.
 */
export async function renderChart(chart: Chart): Promise<string> {
  const [vega, vl] = await load();
  const spec = { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', config, ...chart.spec };
  const compiled = vl.compile(spec as unknown as Parameters<VegaLiteModule['compile']>[0]).spec;
  const loader = vega.loader();
  loader.load = async (uri: string) => {
    throw new RenderOptionsError(`chart ${chart.id}: no data may be loaded from ${uri}`);
  };
  loader.sanitize = async (uri: string) => {
    throw new RenderOptionsError(`chart ${chart.id}: no request may leave the page (${uri})`);
  };
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', loader });
  // Vega writes data text into its own aria-label and <desc>: control and bidi characters go.
  const svg = visibleText(await view.toSVG());
  view.finalize();
  // The root element gets the accessible name and description; vega's own aria attributes stay.
  return svg
    .replace(
      /^<svg /,
      `<svg role="img" aria-labelledby="${esc(chart.id)}-t ${esc(chart.id)}-d" id="${esc(chart.id)}" `,
    )
    .replace(
      /^(<svg[^>]*>)/,
      // A function, not a replacement string: a description's "$125.50" is text, not "$1" + "25.50".
      (root) =>
        `${root}<title id="${esc(chart.id)}-t">${esc(chart.title)}</title><desc id="${esc(chart.id)}-d">${esc(chart.description)}</desc>`,
    );
}

/** Employers counted per group (drug, alcohol) and category (a status, a verdict), of them on an assumed rate. */
export interface BasisCount {
  group: string;
  category: string;
  count: number;
  assumed: number;
}

/**
 * Bars of employers per group and category, the part on an assumed rate pale: the compliance
 * status chart and the catch-up verdict chart. The field names are the data's own (e.g. program
 * and status), `shown` the categories in order with their colours.
 */
export function basisBars(
  counts: readonly BasisCount[],
  o: { groupField: string; categoryField: string; shown: string[]; colours: string[] },
): ChartSpec {
  const values = counts.flatMap((c) =>
    (
      [
        ['measured', c.count - c.assumed],
        ['assumed rate', c.assumed],
      ] as const
    )
      .filter(([, n]) => n > 0)
      .map(([basis, orgs]) => ({ [o.groupField]: c.group, [o.categoryField]: c.category, basis, orgs })),
  );
  return {
    data: { values },
    width: 320,
    height: { step: 18 },
    mark: { type: 'bar' },
    encoding: {
      row: { field: o.groupField, type: 'nominal', title: null, sort: ['drug', 'alcohol'] },
      y: { field: o.categoryField, type: 'nominal', sort: o.shown, title: null },
      x: { field: 'orgs', type: 'quantitative', title: 'employers', stack: 'zero' },
      color: {
        field: o.categoryField,
        type: 'nominal',
        scale: { domain: o.shown, range: o.colours },
        legend: null,
      },
      opacity: {
        field: 'basis',
        type: 'ordinal',
        sort: ['measured', 'assumed rate'],
        scale: { domain: ['measured', 'assumed rate'], range: [1, 0.4] },
        title: 'rate',
      },
      order: { field: 'basis', sort: 'descending' },
    },
  };
}
