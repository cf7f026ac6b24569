import type { Row, Sheet } from '../../render/types.js';
import { externalSort } from '../core/external-sort.js';
import type { ReportDeclaration, ReportInput } from '../core/types.js';
import { aboutLines } from './about.js';
import { Classifier, terminalStages } from './classify.js';
import { columnKeys, orderAgeingColumns, printColumns } from './columns.js';
import { classifierSettings } from './facts.js';
import { orderAgeingHtml } from './html.js';
import { type OrderAgeingOptions, orderAgeingOptions } from './options.js';
import { itemQuery } from './query.js';
import { compareSortable, type Sortable, sortable } from './rows.js';
import { setup } from './setup.js';
import { type AgeingProduct, AgeingSummary, stageOrder } from './summary.js';
import { warningsOf } from './warnings.js';
import { orderAgeingWords } from './words.js';

/**
 * Order status ageing (docs/reports.md): open order items by how long they have existed and how
 * long they have been in their current status, from the status history the mirror records at
 * each poll. Three pieces: the query (query.ts) streams the items, the classifier (classify.ts)
 * turns each into a row, the summary (summary.ts) tallies them; an external sort puts the rows
 * in the detail order in bounded memory.
 */
export const orderAgeingReport: ReportDeclaration<typeof orderAgeingOptions, 'order-ageing', AgeingProduct> =
  {
    name: 'order-ageing',
    title: 'Order status ageing',
    description:
      'Open drug and alcohol order items by age and time in their current status (from the recorded status history), flagged WARN or STUCK against per-stage thresholds of their product family, with summaries per org and per status.',
    options: orderAgeingOptions,
    streams: ['orderitem', 'invoice'],
    build,
    html: orderAgeingHtml,
    words: orderAgeingWords,
  };

async function build(input: ReportInput<OrderAgeingOptions>) {
  const { db, opts, scope, at } = input;
  const fixedWarnings: string[] = [];
  const st = setup(opts);
  const { instant, ...settings } = classifierSettings(input, st);
  const { product } = settings;
  const shownStages = stageOrder.filter((s) => !terminalStages.has(s) || st.showTerminal);
  const orgIds = scope === null ? [] : [...scope];
  // Both are replaced by every pass over the detail (it can be read again).
  let classifier = new Classifier(settings);
  let summary = new AgeingSummary(shownStages);

  async function* computed(): AsyncGenerator<Sortable> {
    for await (const r of itemQuery(db, orgIds, st.excludedNames, at).stream(1000)) {
      const c = classifier.classify(r);
      if (c === null) continue;
      summary.add(c);
      yield sortable(c);
    }
  }

  async function* detail(): AsyncGenerator<Row> {
    classifier = new Classifier(settings);
    summary = new AgeingSummary(shownStages);
    for await (const s of externalSort(computed(), compareSortable, { chunkSize: opts.sortChunkRows })) {
      const row: Row = {};
      s[4].forEach((v, i) => {
        row[columnKeys[i] as string] = v;
      });
      yield row;
    }
  }

  return {
    detail: {
      name: 'Order ageing',
      columns: orderAgeingColumns,
      rows: { [Symbol.asyncIterator]: detail },
      print: { columns: printColumns, titleColumns: 1 },
    },
    summaries: (): Sheet[] => summary.sheets(),
    facts: () => summary.facts(),
    warnings: () => warningsOf(classifier, summary.rows, fixedWarnings),
    about: () => aboutLines({ instant, st, opts, product, at, classifier, rows: summary.rows }),
  };
}

export { orderFacts } from './facts.js';
export { orderAgeingOptions } from './options.js';
