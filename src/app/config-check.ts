import type { Config } from '../config/index.js';
import { ConfigError } from '../errors.js';
import { ReportParamError, reports } from '../reports/index.js';
import { closestName } from '../util/closest.js';

/**
 * The parts of the configuration only the reports can judge, checked whole when a command that
 * runs reports starts (`ohs report`, `ohs run`, `ohs cron`), before anything runs: every name in
 * `reports.options` must be an option of some report. A misspelt one (`recentOrderDay`) would
 * otherwise pass the worker's start and fail its first nightly run hours later. The config loader
 * (src/config) cannot make this check: the option names are the reports' own declarations.
 */
export function checkReportOptions(config: Pick<Config, 'reports'>): void {
  const all = [...new Set(reports.flatMap((r) => r.options))];
  for (const name of Object.keys(config.reports.options)) {
    if (all.includes(name)) continue;
    const hint = closestName(name, all);
    const owners = (option: string) =>
      reports
        .filter((r) => r.options.includes(option))
        .map((r) => r.name)
        .join(', ');
    throw new ConfigError(
      hint === undefined
        ? `config reports.options.${name}: no report has this option (the options: ${all.join(', ')})`
        : `config reports.options.${name}: no report has this option; did you mean ${hint}? (reports.options.${hint}, an option of ${owners(hint)})`,
    );
  }
  // Their values too, as the reports will read them (an instant in the one grammar, a number in
  // range): a bad one fails the worker's start, not its first nightly run.
  for (const report of reports) {
    try {
      report.checkOptions(config.reports.options);
    } catch (err) {
      if (!(err instanceof ReportParamError)) throw err;
      throw new ConfigError(
        `config reports.${err.param}: ${err.message.slice(err.message.indexOf(': ') + 2).replace(/^options\.[^:]*: /, '')}`,
      );
    }
  }
}
