import { listSome } from '../core/values.js';
import type { Classifier } from './classify.js';

export function warningsOf(c: Classifier, rows: number, fixed: string[]): string[] {
  const out = [...fixed];
  if (rows === 0) out.push('No data for this as-of: no order item in the report');
  for (const [name, n] of [...c.unmapped].sort((a, b) => b[1] - a[1]))
    out.push(
      `Status ${JSON.stringify(name)} (${n} item${n === 1 ? '' : 's'}) is not in statusStage: counted as OTHER`,
    );
  if (c.createdAfter.length > 0)
    out.push(
      `${c.createdAfter.length} item(s) created after the as-of instant are not in the report: ${listSome(c.createdAfter)}`,
    );
  if (c.otherProducts.size > 0) {
    const list = [...c.otherProducts].sort((a, b) => b[1] - a[1]).map(([p, n]) => `${p} ${n}`);
    const n = [...c.otherProducts.values()].reduce((a, b) => a + b, 0);
    out.push(
      `${n} item(s) of products in no product family are aged on the generic thresholds (family generic; configure options.families for their own): ${listSome(list)}`,
    );
  }
  if (c.badCreated.length > 0)
    out.push(
      `${c.badCreated.length} item(s) with an unreadable CreationTimestamp: no age: ${listSome(c.badCreated)}`,
    );
  if (c.noHistory > 0)
    out.push(
      `${c.noHistory} item(s) have no status history of their current status (NO_HISTORY): time in status counts from their last sync, a lower bound`,
    );
  if (c.sinceAfter > 0)
    out.push(
      `${c.sinceAfter} item(s) entered their status, as the mirror saw it, after the as-of instant (SINCE_AFTER_AS_OF): their time in status is unknown (basis "unknown since", never 0); their age still flags them`,
    );
  return out;
}
