import {
  defaultFamilies,
  defaultStatusCodeStage,
  defaultStatusStage,
  defaultThresholds,
  type Family,
  norm,
  type Stage,
  type StageOf,
  type Thresholds,
  terminalStages,
} from './classify.js';
import type { OrderAgeingOptions } from './options.js';
import { stageOrder } from './summary.js';

export interface Setup {
  mapping: Map<string, StageOf & { name: string }>;
  codes: Map<string, StageOf & { name: string }>;
  generic: Thresholds;
  families: Map<string, Family>;
  includes: (stage: Stage, terminal: boolean) => boolean;
  excludedNames: string[];
  wanted: Set<Stage> | null;
  showTerminal: boolean;
}

export function setup(opts: OrderAgeingOptions): Setup {
  const mapping = new Map<string, StageOf & { name: string }>();
  const codes = new Map<string, StageOf & { name: string }>();
  for (const [name, s] of Object.entries(defaultStatusStage)) mapping.set(norm(name), { ...s, name });
  for (const [code, s] of Object.entries(defaultStatusCodeStage)) codes.set(norm(code), { ...s, name: code });
  for (const [name, s] of Object.entries(opts.statusStage ?? {})) {
    const given = { name, stage: s.stage, terminal: s.terminal ?? terminalStages.has(s.stage) };
    mapping.set(norm(name), given);
    // A key naming a status code overrides that code's default.
    if (codes.has(norm(name))) codes.set(norm(name), given);
  }
  const base = { ...defaultThresholds, ...(opts.thresholds ?? {}) };
  const families = new Map<string, Family>();
  for (const [name, f] of Object.entries(defaultFamilies))
    families.set(name, { match: f.match, thresholds: base });
  for (const [name, f] of Object.entries(opts.families ?? {}))
    families.set(name, {
      match: f.match.map((m) => m.toLowerCase()),
      // A configured family's thresholds stand alone: a stage it does not name is never flagged.
      thresholds: f.thresholds ?? families.get(name)?.thresholds ?? base,
    });
  const wanted = opts.stages === undefined ? null : new Set<Stage>(opts.stages);
  const includes = (stage: Stage, terminal: boolean) =>
    wanted !== null ? wanted.has(stage) : !terminal || opts.includeTerminal;
  // Exact names of excluded stages are left out in SQL (most of a large mirror is completed).
  const excludedNames = [...mapping.values()]
    .filter((s) => !includes(s.stage, s.terminal))
    .map((s) => s.name);
  const showTerminal =
    opts.includeTerminal || (wanted !== null && [...wanted].some((s) => terminalStages.has(s)));
  return { mapping, codes, generic: base, families, includes, excludedNames, wanted, showTerminal };
}

/** The status mapping and the product families with their thresholds, as About lines. */
export function setupLines(st: ReturnType<typeof setup>): { mappingLine: string; familyLine: string } {
  const mappingLine = [...st.mapping.values()]
    .map((s) => `${s.name} → ${s.stage}${s.terminal ? ' (terminal)' : ''}`)
    .join('; ');
  const familyLine = [...st.families]
    .map(([name, f]) => {
      const t = stageOrder
        .filter((s) => f.thresholds[s] !== undefined)
        .map((s) => `${s} ${f.thresholds[s]?.warn}/${f.thresholds[s]?.stuck}`)
        .join(', ');
      return `${name} (products containing ${f.match.join(' / ')}): ${t || 'no thresholds'}`;
    })
    .join('; ');
  return { mappingLine, familyLine };
}
