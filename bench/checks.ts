import { hasUnsafeInteger, idProblem, typeIssues } from '../src/api/validate-record.js';
import { resources } from '../src/schema/index.js';
import { seedData } from '../src/sim/seed.js';
import { measure, table } from './sandbox.js';

/**
 * The checks every response goes through on its way in: the walk of the parsed value
 * for integers beyond 2^53, and each record's id and field types against the schema. Measured per
 * OrderItem page of 250 records against JSON.parse of the same page (what the client does anyway),
 * in the same run: the ratio is their cost on top of reading the page.
 */
export async function benchChecks(scale: number): Promise<string> {
  const { tables } = seedData({ seed: 1, scale: Math.max(0.05, scale), anchorDate: '2026-06-15' });
  const records = tables.OrderItem.all();
  const pages: string[] = [];
  for (let i = 0; i < records.length; i += 250) pages.push(JSON.stringify(records.slice(i, i + 250)));
  const rounds = 5;
  const parse = await measure(async () => {
    let n = 0;
    for (let r = 0; r < rounds; r++) for (const p of pages) n += (JSON.parse(p) as unknown[]).length;
    return n;
  });
  const spec = resources.OrderItem.spec;
  const checks = await measure(async () => {
    let issues = 0;
    for (let r = 0; r < rounds; r++) {
      for (const p of pages) {
        const page = JSON.parse(p) as Record<string, unknown>[];
        if (hasUnsafeInteger(page)) issues++;
        for (const rec of page) {
          if (idProblem(spec, rec) !== undefined) issues++;
          issues += typeIssues(spec, rec).length;
        }
      }
    }
    return issues;
  });
  const perPage = (s: number) => ((s * 1e6) / (pages.length * rounds)).toFixed(0);
  return [
    `checks: ${records.length} order items in ${pages.length} pages of 250, ${rounds} rounds (issues found: ${checks.result})`,
    table([
      {
        what: 'JSON.parse (baseline)',
        'µs/page': perPage(parse.seconds),
        ratio: '1.00',
        'peak MB': parse.peakRssMb,
      },
      {
        what: 'JSON.parse + checks',
        'µs/page': perPage(checks.seconds),
        ratio: (checks.seconds / parse.seconds).toFixed(2),
        'peak MB': checks.peakRssMb,
      },
    ]),
  ].join('\n');
}
