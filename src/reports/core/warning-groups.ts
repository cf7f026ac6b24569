/**
 * Warnings grouped by kind for a terminal: one run printed 164–170 warning lines. A
 * warning's kind is its text after the subject (after the first ": ", when there is one) with
 * numbers and quoted values blanked, so "Org A (1) 2026-03: no OrgMonth row; pool 4 carried
 * forward" and the same of org B are one kind. The full list stays on the Warnings sheet.
 */
export interface WarningGroup {
  count: number;
  /** The first warning of the kind, in full. */
  example: string;
}

const EXAMPLE_CHARS = 240;

export function kindOf(warning: string): string {
  // A warning quoted from another report (accounts at risk's "compliance: Org A (1) ...") keeps
  // the kind it has in its own report: the quoting report's name is no subject.
  const quoted = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*: (?=[^:]{1,120}: )/.exec(warning);
  const own = quoted === null ? warning : warning.slice(quoted[0].length);
  const at = own.indexOf(': ');
  const tail = at >= 0 && at < 120 ? own.slice(at + 2) : own;
  return tail
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\d+(?:[.,]\d+)*/g, '#')
    .slice(0, 80);
}

/** Groups in the order their kind first appears. */
export function groupWarnings(warnings: readonly string[]): WarningGroup[] {
  const groups = new Map<string, WarningGroup>();
  for (const w of warnings) {
    const kind = kindOf(w);
    const g = groups.get(kind);
    if (g === undefined) groups.set(kind, { count: 1, example: w });
    else g.count++;
  }
  return [...groups.values()];
}

/** The lines for stderr: one per kind, with its count and first example (clipped). */
export function warningLines(report: string, warnings: readonly string[]): string[] {
  return groupWarnings(warnings).map((g) => {
    const example =
      g.example.length > EXAMPLE_CHARS ? `${g.example.slice(0, EXAMPLE_CHARS - 1)}…` : g.example;
    return g.count === 1
      ? `${report}: warning: ${example}`
      : `${report}: warning (${g.count} like this): ${example}`;
  });
}
