import { z } from 'zod';
import {
  DURATION_WORDS,
  INSTANT_WORDS,
  parseDuration,
  readInstant,
  type WrittenInstant,
} from '../../dates.js';
import { ReportParamError } from './errors.js';
import type { CommonParams, ReportParams } from './types.js';

export type { CommonParams };

/**
 * The parameters every report takes, checked: the as-of arrives resolved (dates.ts `AsOf`), so
 * nothing is parsed here; the org ids are checked (a caller other than the CLI may pass anything).
 */
export function commonParams(report: string, params: ReportParams): CommonParams {
  const { asOf } = params.time;
  const orgIds = Array.isArray(params.orgIds) ? params.orgIds : [];
  for (const id of orgIds) {
    if (typeof id !== 'number' || !Number.isInteger(id) || id <= 0)
      throw new ReportParamError(report, 'orgIds', `expected whole org ids, got ${show(id)}`);
  }
  return {
    asOf: asOf.date,
    asOfText: asOf.dateText,
    asOfMs: asOf.source === 'instant' ? asOf.ms : asOf.dayEndMs,
    orgIds: [...new Set(orgIds)],
    timezone: asOf.timezone,
  };
}

/** A value shown in an error message. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  try {
    return `\`${JSON.stringify(value)}\``;
  } catch {
    return `\`${String(value)}\``;
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const k of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/**
 * Validates `params.options` with a report's zod schema; the first problem is thrown as a
 * ReportParamError naming the option (`options.periodDays`) and the value received. The names
 * the schema does not declare are returned: the runner (runner.ts) warns of those no report knows
 * (`ohs report all` passes one set of options to every report, so an option of another report is
 * not an error).
 */
export function parseOptions<S extends z.ZodObject>(
  report: string,
  schema: S,
  options: Record<string, unknown> | undefined,
): { options: z.output<S>; unknown: string[] } {
  const input = options ?? {};
  const result = schema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue?.path ?? [];
    const name = ['options', ...path.map(String)].join('.');
    throw new ReportParamError(
      report,
      name,
      `${issue?.message ?? 'invalid'}, got ${show(valueAt(input, path))}`,
    );
  }
  const unknown = Object.keys(input).filter((k) => !Object.hasOwn(schema.shape, k));
  return { options: result.data, unknown };
}

/** Numbers may come as strings from a command line. */
const numeric = (v: unknown) =>
  typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;

export function intOption(min: number, max: number) {
  const error = `expected a whole number from ${min} to ${max}`;
  return z.preprocess(numeric, z.number({ error }).int({ error }).min(min, { error }).max(max, { error }));
}

export function numberOption(min: number, max: number) {
  const error = `expected a number from ${min} to ${max}`;
  return z.preprocess(numeric, z.number({ error }).min(min, { error }).max(max, { error }));
}

export function boolOption() {
  return z.preprocess(
    (v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : v),
    z.boolean({ error: 'expected true or false' }),
  );
}

export function enumOption<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `expected one of ${values.join(', ')}` });
}

/** A list, or a comma-separated string of items. */
export function listOption<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== '')
        : v,
    z.array(item, { error: 'expected a list' }),
  );
}

/** Org ids and their descendants (org_policy.parent_org_id), cycles ignored. */
export function withDescendants(
  orgIds: readonly number[],
  parentOf: ReadonlyMap<number, number | null>,
): Set<number> {
  const children = new Map<number, number[]>();
  for (const [org, parent] of parentOf) {
    if (parent === null) continue;
    const list = children.get(parent) ?? [];
    list.push(org);
    children.set(parent, list);
  }
  const out = new Set<number>();
  const stack = [...orgIds];
  while (stack.length > 0) {
    const id = stack.pop() as number;
    if (out.has(id)) continue;
    out.add(id);
    for (const c of children.get(id) ?? []) stack.push(c);
  }
  return out;
}

/**
 * An instant option (`--from`, `--to`, `--option from=…`): the one instant grammar of dates.ts
 * (`readInstant`; a date alone is the start of that day), read here once; the report resolves
 * it in its zone (`instantIn`), never parses it.
 */
export function instantOption() {
  return z.string({ error: INSTANT_WORDS }).transform((v, ctx): WrittenInstant => {
    const w = readInstant(v, true);
    if (w === null) {
      ctx.addIssue({ code: 'custom', message: INSTANT_WORDS });
      return z.NEVER;
    }
    return w;
  });
}

/** A start given as an instant or as a duration back from the run's instant (`--since`). */
export type InstantOrDuration =
  | { kind: 'instant'; instant: WrittenInstant }
  | { kind: 'duration'; ms: number; text: string };

/** An instant (the one grammar) or a duration (the one grammar of dates.ts `parseDuration`). */
export function instantOrDurationOption() {
  const words = `${INSTANT_WORDS}, or ${DURATION_WORDS}`;
  return z.string({ error: words }).transform((v, ctx): InstantOrDuration => {
    const ms = parseDuration(v);
    if (ms !== null) return { kind: 'duration', ms, text: v.trim() };
    const w = readInstant(v, true);
    if (w !== null) return { kind: 'instant', instant: w };
    ctx.addIssue({ code: 'custom', message: words });
    return z.NEVER;
  });
}
