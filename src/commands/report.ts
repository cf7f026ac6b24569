import { dirname } from 'node:path';
import { type Command, Help, Option } from 'commander';
import { checkReportOptions } from '../app/config-check.js';
import { runReports } from '../app/report-run.js';
import { checkOptionNames } from '../app/reports.js';
import { resolveAsOf } from '../dates.js';
import { UsageError } from '../errors.js';
import { type ReportDefinition, reportByName, reportOptionsSchema, reports } from '../reports/index.js';
import { didYouMean } from '../util/closest.js';
import { textTable } from '../util/text-table.js';
import { commandContext } from './context.js';
import { DB_OPTION_HELP, listArg } from './parse.js';
import { reportHelp } from './report-help.js';
import { asInvoked, attentionLines, withSummary } from './summary.js';

interface ReportFlags {
  list: boolean;
  asOf?: string;
  asOfTime?: string;
  present: boolean;
  csvExcel?: boolean;
  org?: string[];
  /** Absent: config jobs.formats. */
  format?: ('xlsx' | 'csv' | 'html')[];
  /** Absent: config jobs.outDir. */
  out?: string;
  option?: string[];
  quiet?: boolean;
}

const formats = ['xlsx', 'csv', 'html'] as const;

function parseOptions(pairs: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const m = /^([A-Za-z][A-Za-z0-9]*)=(.*)$/s.exec(pair);
    if (m === null) throw new UsageError(`--option '${pair}': expected NAME=VALUE`);
    const [, key = '', raw = ''] = m;
    let value: unknown = raw;
    if (raw === 'true' || raw === 'false') value = raw === 'true';
    else if (raw.trim() !== '' && Number.isFinite(Number(raw))) value = Number(raw);
    else if (raw.startsWith('{') || raw.startsWith('[')) {
      try {
        value = JSON.parse(raw);
      } catch {
        throw new UsageError(`--option ${key}: not valid JSON`);
      }
    }
    out[key] = value;
  }
  return out;
}

const reportNames = () => [...reports.map((r) => r.name), 'all'];

/**
 * `--org` and `--option` take several values, so commander hands them a report name written
 * after them (`ohs report --org 1001 compliance`). Such a name is taken back as the report; a
 * second name is a usage error.
 */
function reclaimName(name: string | undefined, flags: ReportFlags): string | undefined {
  let found = name;
  for (const key of ['org', 'option'] as const) {
    const values = flags[key];
    if (values === undefined) continue;
    const kept: string[] = [];
    for (const v of values) {
      if (!reportNames().includes(v)) {
        kept.push(v);
        continue;
      }
      if (found !== undefined)
        throw new UsageError(
          `--${key} '${v}': a report name among the --${key} values, and the report is already '${found}' (write the report name first: ohs report NAME --${key} ...)`,
        );
      found = v;
    }
    flags[key] = kept;
  }
  return found;
}

/** A flag some reports declare (ReportDeclaration.flags), with the reports that take it. */
interface DeclaredFlag {
  option: Option;
  takers: { report: ReportDefinition; option: string }[];
}

/** The flags the reports declare, one per flag name, in the registry's order. */
function declaredFlags(): DeclaredFlag[] {
  const byName = new Map<string, DeclaredFlag>();
  for (const report of reports)
    for (const f of report.flags) {
      const known = byName.get(f.name);
      if (known !== undefined) known.takers.push({ report, option: f.option });
      else
        byName.set(f.name, {
          option: new Option(`--${f.name} <${f.value}>`, f.description),
          takers: [{ report, option: f.option }],
        });
    }
  for (const d of byName.values())
    d.option.description = `${d.takers.map((t) => t.report.name).join(', ')}: ${d.option.description}`;
  return [...byName.values()];
}

/**
 * The declared flags given, as report options (a flag fills the option its report declares); a
 * flag that none of the chosen reports takes is a usage error naming the report.
 */
function flagOptions(
  declared: readonly DeclaredFlag[],
  values: Record<string, unknown>,
  name: string,
  chosen: readonly ReportDefinition[],
): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const { option, takers } of declared) {
    const value = values[option.attributeName()];
    if (value === undefined) continue;
    const taking = takers.filter((t) => chosen.includes(t.report));
    if (taking.length === 0) {
      const names = takers.map((t) => t.report.name);
      throw new UsageError(
        `${option.long}: report '${name}' does not take it (${names.join(', ')} ${names.length === 1 ? 'does' : 'do'}: ohs report ${names[0]} ${option.flags})`,
      );
    }
    for (const t of taking) options[t.option] = value;
  }
  return options;
}

/** The help's example of the declared flags: each report with flags, those with an example value. */
const flagExamples = () =>
  reports
    .map((r) => [r.name, r.flags.filter((f) => f.example !== undefined)] as const)
    .filter(([, flags]) => flags.length > 0)
    .map(
      ([name, flags]) => `\n  ohs report ${name} ${flags.map((f) => `--${f.name} ${f.example}`).join(' ')}`,
    )
    .join('');

/** `ohs report NAME|all`: runs reports on the mirror and writes Excel, CSV and HTML pages. */
export function registerReport(program: Command): void {
  const declared = declaredFlags();
  // The examples' report: the first of the registry (every registry has one).
  const example = reports[0]?.name ?? 'NAME';
  const command = program
    .command('report')
    .description(
      `run a report on the mirror (${reports.map((r) => r.name).join(', ')}, or all) into ${formats.join(', ')} (--format)`,
    )
    .argument('[name]', `report name: ${reports.map((r) => r.name).join(', ')}, or all`)
    .option('--list', 'list the reports with their descriptions', false)
    .option('--as-of <date>', 'as-of date YYYY-MM-DD (default: today in the configured time zone)')
    .option(
      '--as-of-time <instant>',
      'read the mirror as it stood at this instant, ISO 8601 (and age order items to it); default: the end of a past --as-of date, else the present',
    )
    .option(
      '--present',
      "read the mirror as it is now, whatever the as-of date (today's figures aged to the as-of date)",
      false,
    )
    .option('--org <id...>', 'only these orgs')
    .option(
      '--format <list>',
      'any of xlsx,csv,html (html: one self-contained page per report; default config jobs.formats)',
      listArg(formats),
    )
    .option('--out <dir>', 'output folder (default config jobs.outDir)')
    .option(
      '--option <name=value...>',
      'report parameter, e.g. --option agingBasis=invoiceDate includeTerminal=true',
    );
  // The flags the reports declare, listed after --option (what they are short for).
  for (const d of declared) command.addOption(d.option);
  command
    .option('-q, --quiet', 'print nothing but a failure (warnings stay on the Warnings sheet)')
    .option('--csv-excel', "CSV for Excel in locales with a decimal comma: ';' between fields", false)
    .option('--db <db>', DB_OPTION_HELP)
    // `ohs report NAME --help`: that report's options (type, default, meaning) from its declaration.
    .configureHelp({
      formatHelp: (cmd, helper) => {
        const report = reportByName(String(cmd.args[0] ?? ''));
        const schema = report === undefined ? undefined : reportOptionsSchema(report.name);
        const common = Help.prototype.formatHelp.call(helper, cmd, helper);
        return report !== undefined && schema !== undefined ? reportHelp(report, schema, common) : common;
      },
    })
    .addHelpText('after', ({ command: cmd }) =>
      reportByName(String(cmd.args[0] ?? '')) !== undefined
        ? ''
        : `\nExamples:\n  ohs report --list\n  ohs report all --as-of 2026-06-30\n  ohs report ${example} --as-of-time 2026-10-31T23:00:00Z\n  ohs report ${example} --org 1007 1013 --format csv --out reports-out\n  ohs report all --format html,csv${flagExamples()}`,
    )
    .action(async (given: string | undefined, flags: ReportFlags, cmd: Command) => {
      const name = reclaimName(given, flags);
      if (flags.list) {
        process.stdout.write(
          textTable(
            undefined,
            reports.map((r) => [r.name, `${r.title}: ${r.description}`]),
          ),
        );
        return;
      }
      if (name === undefined)
        throw new UsageError(
          `which report? ${reports.map((r) => r.name).join(', ')}, or all (ohs report --list)`,
        );
      const chosen = name === 'all' ? reports : [reportByName(name)].filter((r) => r !== undefined);
      if (chosen.length === 0)
        throw new UsageError(
          `unknown report '${name}'${didYouMean(name, [...reports.map((r) => r.name), 'all'])} (reports: ${reports.map((r) => r.name).join(', ')}, all)`,
        );
      const ctx = commandContext(cmd);
      const { config, logger } = ctx;
      checkReportOptions(config);
      withSummary();
      // --quiet before the command name is the global flag of the same name.
      flags.quiet = flags.quiet === true || cmd.optsWithGlobals<{ quiet?: boolean }>().quiet === true;
      // The one reading of --as-of / --as-of-time / the clock: the date is the instant's in the zone.
      const asOf = resolveAsOf({ date: flags.asOf, instant: flags.asOfTime }, config.timezone);
      const orgIds = (flags.org ?? []).map((o) => {
        if (!/^\d+$/.test(o)) throw new UsageError(`--org '${o}': expected a whole-number org id`);
        return Number(o);
      });
      const options = {
        ...parseOptions(flags.option ?? []),
        ...flagOptions(declared, cmd.opts(), name, chosen),
      };
      checkOptionNames(chosen, options);
      // Every value read now, as the reports will read them: a bad one opens nothing.
      for (const report of chosen) report.checkOptions({ ...config.reports.options, ...options });
      const mirror = await ctx.mirror('read');
      try {
        const files = await runReports(mirror, config, logger, chosen, {
          asOf,
          present: flags.present,
          orgIds,
          options,
          outDir: flags.out ?? config.jobs.outDir,
          formats: flags.format ?? config.jobs.formats,
          quiet: flags.quiet === true,
          csvExcel: flags.csvExcel === true,
        });
        if (flags.quiet !== true) {
          // stdout lists the files (scripts read it); what to do next goes with the summary lines.
          for (const f of files) process.stdout.write(`${f}\n`);
          const folders = [...new Set(files.map((f) => dirname(f)))].join(', ');
          const html = files.some((f) => f.endsWith('.html'));
          for (const line of attentionLines()) process.stderr.write(`${line}\n`);
          process.stderr.write(
            `${files.length} file(s) in ${folders}; next: open them (a workbook starts with its summary sheet)${html ? `, and ${asInvoked('dashboard')} for the index of the HTML pages` : ''}\n`,
          );
        }
      } finally {
        await mirror.close();
      }
    });
}
