import { formatInstant } from '../../dates.js';
import { ORG_NAMES_ABOUT } from '../core/org-names.js';
import type { Classifier } from './classify.js';
import type { OrderAgeingOptions } from './options.js';
import { type Setup, setupLines } from './setup.js';

export interface AboutFacts {
  instant: { ms: number; note: string };
  st: Setup;
  opts: OrderAgeingOptions;
  product: string | null;
  at: string | undefined;
  classifier: Classifier;
  rows: number;
}

/** The About sheet: the as-of instant, the stages and thresholds, and what was left out. */
export function aboutLines(f: AboutFacts): { method: [string, string][]; results: [string, string][] } {
  const { instant, st, opts, product, at, classifier } = f;
  const { mappingLine, familyLine } = setupLines(st);
  const method: [string, string][] = [
    ['As-of instant', `${formatInstant(instant.ms)}: ${instant.note}`],
    [
      'Status stages',
      `By status code (c_currentStatusCodeId) first: ${[...st.codes.values()].map((c) => `${c.name} → ${c.stage}`).join(', ')}; then by name: ${mappingLine}; any other status → OTHER (terminal when the item is not modifiable)`,
    ],
    [
      'Thresholds (warn/stuck hours) by product family',
      `${familyLine}; products of no family: generic (${Object.entries(st.generic)
        .map(([s, t]) => `${s} ${t?.warn}/${t?.stuck}`)
        .join(
          ', ',
        )}); terminal stages have none; an item 30 days old or more is never OK (at least WARN, basis "age 30d+")`,
    ],
    [
      'Time in status',
      `From the status history recorded at each poll (error at most one poll interval, ${opts.pollIntervalHours} h). When the history starts in the current status more than one poll interval after creation, the time is a lower bound (sinceIsLowerBound, shown ≥); a lower bound can only raise the flag.`,
    ],
    [
      'Flag basis',
      "history: a recorded change into the status; creation: in the status since creation (an item in the first stage, ORDERED, has been there since creation unless its history shows it moved back; any other item whose history starts within one poll interval of creation); lower bound: at least since the mirror first saw it; unknown since: the time in status is unknown or only a lower bound, and the age since creation decides: at the stage's warn threshold at least WARN, at the stuck thresholds of every earlier stage added up (ORDERED, COLLECTED, AT_LAB, MRO, ON_HOLD, OTHER in that order) STUCK; an item past its warn age is never OK; age 30d+: raised from OK by an age of 30 days or more",
    ],
    [
      'Scope',
      `${opts.includeTerminal ? 'All items' : 'Open items (terminal stages excluded)'}${st.wanted === null ? '' : `; stages ${[...st.wanted].join(', ')}`}${product === null ? '' : `; product contains ${JSON.stringify(opts.product)}`}; items created after the as-of instant are left out`,
    ],
    [
      'Mirror read',
      at === undefined
        ? 'The present: items and status history as last synced'
        : `As known at ${at}: each item as the mirror held it then (its history), and only the statuses it had seen by then; a change that happened before that instant but was synced after it is not known`,
    ],
    ORG_NAMES_ABOUT,
  ];
  const results: [string, string][] = [
    ['Detail rows', String(f.rows)],
    ['Created after the as-of instant (left out)', String(classifier.createdAfter.length)],
    [
      'Products in no family (aged on the generic thresholds)',
      String([...classifier.otherProducts.values()].reduce((a, b) => a + b, 0)),
    ],
    ['Time in status unknown (status seen first after the as-of instant)', String(classifier.unknownSince)],
    [
      'Flag raised by the age since creation (time in status unknown or a lower bound)',
      String(classifier.raisedByAge),
    ],
    ['Raised from OK by an age of 30 days or more', String(classifier.raisedBy30Days)],
    [
      'Ages',
      'In days in the workbook (columns Age (days), Time in status (days)); the hour columns of the CSV are grouped (+) in the workbook',
    ],
  ];
  return { method, results };
}
