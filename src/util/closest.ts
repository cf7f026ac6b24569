/** Levenshtein distance between two short strings (keys, header names). */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j] ?? 0;
      row[j] = Math.min(up + 1, (row[j - 1] ?? 0) + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return row[b.length] ?? 0;
}

/**
 * The candidate closest to `name` (case-insensitive), for "did you mean": only when it is close
 * enough to be a typo (at most 2 edits, or a third of the name's length for long names).
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const all = [...candidates];
  for (const c of all) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  if (bestDistance <= Math.max(2, Math.floor(name.length / 3))) return best;
  // A name cut short (`amount` for `amountToPay`): the one candidate it begins, if only one.
  const lower = name.toLowerCase();
  const starts = lower.length >= 4 ? all.filter((c) => c.toLowerCase().startsWith(lower)) : [];
  return starts.length === 1 ? starts[0] : undefined;
}

/** ` (did you mean X?)` for the candidate closest to `name`, or '' when none is close. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const hint = closestName(name, candidates);
  return hint === undefined ? '' : ` (did you mean ${hint}?)`;
}
