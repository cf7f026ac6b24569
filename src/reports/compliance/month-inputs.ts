import { asInteger, asNumber, asText } from '../core/values.js';
import type { Collector } from './collector.js';
import type { MonthInput } from './model.js';
import { parseMonthLabel } from './months.js';
import type { orgMonthRows } from './queries.js';

/** OrgMonth rows of the year through month `m`, by org then month; unreadable labels warned. */
export function monthsByOrg(
  rows: Awaited<ReturnType<typeof orgMonthRows>>,
  names: Map<number, string | null>,
  scope: Set<number> | null,
  year: number,
  m: number,
  warn: Collector,
  /** Filled with the count of rows per org whose label is no month, when given. */
  badLabelsOf?: Map<number, number>,
): Map<number, Map<number, MonthInput>> {
  const byOrg = new Map<number, Map<number, MonthInput>>();
  const badLabels: string[] = [];
  for (const r of rows) {
    const orgId = asInteger(r.OrgId);
    if (orgId === null || (scope !== null && !scope.has(orgId))) continue;
    const label = asText(r.label);
    const parsedLabel = parseMonthLabel(label);
    const id = asInteger(r.id);
    const name = names.get(orgId);
    const where = `OrgMonth ${id ?? '?'} of org ${name === undefined ? '' : `${name} `}(${orgId})`;
    if (parsedLabel === null) {
      badLabels.push(
        `${where}: label ${JSON.stringify(label)} is not a month (YYYY-MM, MM/YYYY, YYYY-M); row not used`,
      );
      badLabelsOf?.set(orgId, (badLabelsOf.get(orgId) ?? 0) + 1);
      continue;
    }
    if (parsedLabel.year !== year || parsedLabel.month > m) continue;
    const input: MonthInput = {
      id,
      label: label ?? '',
      pool:
        asNumber(r.countEligibleRandomPool) === null
          ? unreadablePool(r.countEligibleRandomPool, where, warn)
          : count(r.countEligibleRandomPool, 'pool', where, warn),
      eligibleAll: asNumber(r.countEligibleAll),
      drugPicked: count(r.countPickedDrug, 'countPickedDrug', where, warn),
      drugCompleted: count(r.countPickedDrugResult, 'countPickedDrugResult', where, warn),
      alcoholPicked: count(r.countPickedAlcohol, 'countPickedAlcohol', where, warn),
      alcoholCompleted: count(r.countPickedAlcoholResult, 'countPickedAlcoholResult', where, warn),
      randomPickDocument: asText(r.dropRandomPick),
      coveredEmployeeDocument: asText(r.dropCoveredEmployee),
      misReportDocument: asText(r.dropMisReport),
    };
    const months = byOrg.get(orgId) ?? new Map<number, MonthInput>();
    const prev = months.get(parsedLabel.month);
    if (prev !== undefined) {
      // Two rows of one month (e.g. labels 2025-03 and 03/2025): the later row (higher id) is used.
      const keep = (input.id ?? 0) > (prev.id ?? 0) ? input : prev;
      warn.add(
        'duplicate',
        `Org ${orgId}: OrgMonth rows ${prev.id} (${prev.label}) and ${input.id} (${input.label}) are both ${year}-${String(parsedLabel.month).padStart(2, '0')}; row ${keep.id} is used`,
      );
      months.set(parsedLabel.month, keep);
    } else months.set(parsedLabel.month, input);
    byOrg.set(orgId, months);
  }
  for (const line of badLabels) warn.add('label', line);
  return byOrg;
}

/** A pool that is not a number is a missing pool (DATA_GAP); a non-empty one is also listed. */
function unreadablePool(v: unknown, where: string, warn: Collector): null {
  if (v !== null && v !== undefined && v !== '')
    warn.add('unreadable', `${where}: pool ${JSON.stringify(v)} is not a number; read as missing`);
  return null;
}

/** Counts a value of an OrgMonth count; an unreadable one (`"lots"`) is 0, listed in the warnings. */
function count(v: unknown, what: string, where: string, warn: Collector): number {
  const n = asNumber(v);
  if (n === null) {
    if (v !== null && v !== undefined && v !== '')
      warn.add('unreadable', `${where}: ${what} ${JSON.stringify(v)} is not a number; read as 0`);
    return 0;
  }
  if (!Number.isInteger(n) || n < 0) {
    warn.add('counts', `${where}: ${what} ${n} is not a whole count; read as ${Math.max(0, Math.round(n))}`);
    return Math.max(0, Math.round(n));
  }
  return n;
}
