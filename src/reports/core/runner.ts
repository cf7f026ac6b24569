import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { type Database, policiesAsOf } from '../../mirror/index.js';
import type { ReportResult, Row } from '../../render/types.js';
import { didYouMean } from '../../util/closest.js';
import type { MonthEnd } from './ar-trend.js';
import { orgNames } from './org-names.js';
import { type CommonParams, commonParams, parseOptions, withDescendants } from './params.js';
import { productKey, ReportRun } from './run.js';
import { lastSyncLines } from './sync-info.js';
import type {
  ReportContext,
  ReportDeclaration,
  ReportDefinition,
  ReportInput,
  ReportParams,
} from './types.js';

/**
 * The one runner of every report declaration: it checks the common parameters and the report's
 * options, warns of options no report knows, widens the org scope to child orgs, reads the org
 * names, and puts the About sheet together around the last sync of the report's streams. A
 * report's folder declares only its options, queries, rows and sheets, and its HTML page's
 * summary (types.ts).
 */
export function defineReports<N extends string>(
  declarations: readonly ReportDeclaration<z.ZodObject, N>[],
): ReportDefinition<N>[] {
  const everyOption = new Set(declarations.flatMap((d) => Object.keys(d.options.shape)));
  return declarations.map((d) => ({
    name: d.name,
    title: d.title,
    description: d.description,
    options: Object.keys(d.options.shape),
    flags: d.flags ?? [],
    streams: d.streams,
    checkOptions: (options: Record<string, unknown>) => {
      // Its own options only: `report all` hands every report the options of all of them.
      const own = Object.fromEntries(
        Object.entries(options).filter(([k]) => Object.hasOwn(d.options.shape, k)),
      );
      parseOptions(d.name, d.options, own);
    },
    run: (ctx: ReportContext) => runReport(d, ctx, everyOption),
    trend: (ctx: ReportContext, ends: readonly MonthEnd[]) => trendRows(d, ctx, ends),
    html: d.html,
    words: d.words ?? {},
  }));
}

/** The checked parameters and options of a report (also for its trend read on its own). */
export function prepare<S extends z.ZodObject, N extends string>(
  declaration: ReportDeclaration<S, N>,
  params: ReportParams,
): { common: CommonParams; opts: z.output<S>; unknown: string[] } {
  const common = commonParams(declaration.name, params);
  const parsed = parseOptions(declaration.name, declaration.options, params.options);
  return { common, opts: parsed.options, unknown: parsed.unknown };
}

/**
 * The orgs of a report: none given, every org (null); else the ones given and, with
 * `includeChildren`, their descendants by org_policy.parent_org_id.
 */
export async function orgScope(
  db: Kysely<Database>,
  orgIds: readonly number[],
  includeChildren: boolean,
  at: string | undefined,
): Promise<Set<number> | null> {
  if (orgIds.length === 0) return null;
  if (!includeChildren) return new Set(orgIds);
  // Parents as the policies in force at the instant the mirror is read as of.
  const policies = await policiesAsOf(db, at);
  return withDescendants(orgIds, new Map(policies.map((p) => [p.org_id, p.parent_org_id])));
}

/** The org names as the mirror knew them at an instant (org-names.ts), read once per run. */
const ORG_NAMES = productKey<Map<number, string>>('org-names');

/** What a report's build and trend read: the checked parameters, the org scope and names. */
async function inputOf<S extends z.ZodObject, N extends string>(
  declaration: ReportDeclaration<S, N>,
  db: Kysely<Database>,
  params: ReportParams,
  run: ReportRun,
): Promise<{ input: ReportInput<z.output<S>>; unknown: string[] }> {
  const { common, opts, unknown } = prepare(declaration, params);
  const includeChildren = (opts as { includeChildren?: unknown }).includeChildren === true;
  const at = params.time.mirrorAt ?? undefined;
  const scope = await orgScope(db, common.orgIds, includeChildren, at);
  // The org names as known at `at`: read once per run.
  const names = await run.product(ORG_NAMES, at ?? null, () => orgNames(db, at));
  const inputFor = async <T extends z.ZodObject>(
    other: ReportDeclaration<T>,
    options: Record<string, unknown> = {},
  ): Promise<ReportInput<z.output<T>>> => {
    // Its own options only (so none is warned of as unknown), `options` over them.
    const keys = new Set(Object.keys(other.options.shape));
    const own = Object.fromEntries(Object.entries(params.options).filter(([k]) => keys.has(k)));
    const p = { ...params, options: { ...own, ...options } };
    return (await inputOf(other, db, p, run)).input;
  };
  return { input: { db, params, common, opts, scope, at, names, run, inputFor }, unknown };
}

/**
 * The input a report's build gets in the run of `ctx` (the same as the runner hands it): the
 * application reads a report's typed figures with it (the packet reads compliance's walk), built
 * once in that run and shared with the report's own build.
 */
export async function reportInput<S extends z.ZodObject, N extends string>(
  declaration: ReportDeclaration<S, N>,
  ctx: ReportContext & { run: ReportRun },
): Promise<ReportInput<z.output<S>>> {
  return (await inputOf(declaration, ctx.db, ctx.params, ctx.run)).input;
}

/** A report's Trend rows at the given month ends (none when it has no trend). */
async function trendRows<S extends z.ZodObject, N extends string>(
  declaration: ReportDeclaration<S, N>,
  ctx: ReportContext,
  ends: readonly MonthEnd[],
): Promise<Row[]> {
  if (declaration.trend === undefined) return [];
  const { input } = await inputOf(declaration, ctx.db, ctx.params, ctx.run ?? new ReportRun());
  return declaration.trend(input, ends);
}

async function runReport<S extends z.ZodObject, N extends string>(
  declaration: ReportDeclaration<S, N>,
  { db, params, run }: ReportContext,
  everyOption: ReadonlySet<string>,
): Promise<ReportResult> {
  // A report asked alone is a run of its own: what it is built on is built once in it too.
  const { input, unknown } = await inputOf(declaration, db, params, run ?? new ReportRun());
  const optionWarnings = unknown
    .filter((k) => !everyOption.has(k))
    .map((k) => `Option ${k} is not an option of any report: ignored${didYouMean(k, everyOption)}`);
  const body = await declaration.build(input);
  const syncLines = await lastSyncLines(db, declaration.streams, input.at);
  const { trend } = body;
  return {
    ...(body.fileName === undefined ? {} : { fileName: body.fileName }),
    ...(body.covers === undefined ? {} : { covers: body.covers }),
    detail: body.detail,
    // The Trend sheet last in the workbook, and handed on by itself (its CSV of its own).
    summaries: trend === undefined ? body.summaries : () => [...body.summaries(), trend],
    ...(trend === undefined ? {} : { trend }),
    ...(body.facts === undefined ? {} : { facts: body.facts }),
    warnings: () => [...optionWarnings, ...body.warnings()],
    about: () => {
      const { method, results } = body.about();
      return [...method, ...syncLines, ...results];
    },
  };
}
