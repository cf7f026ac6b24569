import type { Command } from 'commander';
import { importPolicies } from '../policy/import.js';
import { summarised } from '../terminal.js';
import { commandContext } from './context.js';
import { DB_OPTION_HELP } from './parse.js';

/** `ohs policy import FILE`: org random-testing rate policies into the mirror. */
export function registerPolicy(program: Command): void {
  const policy = program
    .command('policy')
    .description('org random-testing rate policies (for the compliance report)');
  policy
    .command('import')
    .description(
      'import org policies from a CSV or XLSX file (orgId, program, agency, rpMinDrug, rpMinAlc, dotRegistrationNumber, parentOrgId, effectiveFrom: the first day it scores, default 1 January of this year)',
    )
    .argument('<file>', 'CSV, XLSX, JSON or NDJSON file')
    .option(
      '--sheet <name>',
      "the sheet of an .xlsx file to read, its name matched exactly (default: the workbook's only visible sheet)",
    )
    .option('--db <db>', DB_OPTION_HELP)
    .addHelpText('after', '\nExample: ohs policy import examples/org-policy.csv')
    .action(async (file: string, flags: { sheet?: string }, cmd: Command) => {
      const ctx = commandContext(cmd);
      const { config, logger } = ctx;
      // The count is printed on stdout: the log's own line goes to the log file only.
      summarised();
      const mirror = await ctx.mirror('write');
      try {
        const n = await importPolicies(mirror.db, file, config.input, config.timezone, flags.sheet);
        logger.info({ file, policies: n }, 'policies imported');
        process.stdout.write(`imported ${n} org policies from ${file} into ${mirror.location}\n`);
      } finally {
        await mirror.close();
      }
    });
}
