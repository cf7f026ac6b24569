import type { z } from 'zod';
import { asOfInstant, reportTime } from '../../dates.js';
import { reportInput } from '../core/runner.js';
import type { ReportDeclaration, ReportInput, ReportParams } from '../core/types.js';
import type { ChangesOptions } from './options.js';

/**
 * The parameters of a base report at one end of the period: the changes report's own at its end
 * (`at` undefined: the same as `report all` hands that report, so what the report is built on is
 * the run's, built once), or as of an earlier instant (its as-of that instant, the mirror read as
 * known then, in the same run). The base report's own options only, `extra` over them.
 */
function paramsAt(
  input: ReportInput<ChangesOptions>,
  own: ReadonlySet<string>,
  at: number | undefined,
  extra: Record<string, unknown>,
): ReportParams {
  const options = {
    ...Object.fromEntries(Object.entries(input.params.options).filter(([k]) => own.has(k))),
    ...extra,
  };
  if (at === undefined) return { ...input.params, options };
  return {
    time: reportTime(asOfInstant(at, input.common.timezone), { run: input.params.time.run }),
    orgIds: input.params.orgIds,
    options,
  };
}

/**
 * The input a base report's build gets at one end of the period, in the changes report's run:
 * with it the changes report reads that report's typed figures (compliance's walk, the ageing's
 * invoices, the order items as the ageing classifies them), the same the report itself is
 * written from, never its sheets. No registry of reports is built here: a declaration is read by
 * the one runner's `reportInput`.
 */
export function inputAt<S extends z.ZodObject, N extends string>(
  input: ReportInput<ChangesOptions>,
  declaration: ReportDeclaration<S, N>,
  at: number | undefined,
  extra: Record<string, unknown> = {},
): Promise<ReportInput<z.output<S>>> {
  const own = new Set(Object.keys(declaration.options.shape));
  return reportInput(declaration, {
    db: input.db,
    params: paramsAt(input, own, at, extra),
    run: input.run,
  });
}
