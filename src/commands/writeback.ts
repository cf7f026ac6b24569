import { createInterface } from 'node:readline/promises';
import { type Command, Option } from 'commander';
import { createClient, verifyService } from '../api/index.js';
import { UsageError } from '../errors.js';
import type { OutboxState } from '../mirror/index.js';
import { summarised } from '../terminal.js';
import { printable } from '../util/printable.js';
import { textTable } from '../util/text-table.js';
import {
  type ApplyReport,
  applyOutbox,
  applySettings,
  confirmDeletes,
  listOutbox,
  maskDeep,
  type OpName,
  type OutboxItem,
  opNames,
  outboxStates,
  type PlanReport,
  type PlanTotals,
  planFile,
  planSettings,
  resolveItem,
  throwUnlessDone,
  unconfirmedDeletes,
} from '../writeback/index.js';
import { commandContext, shareRateBudget } from './context.js';
import { DB_OPTION_HELP, intArg } from './parse.js';

export function formatPlan(report: PlanReport): string {
  const rows = report.lines.map((l) => [
    String(l.row),
    l.op,
    l.target,
    l.summary,
    l.status === 'new' ? `new #${l.outboxId}` : l.status === 'queued' ? `already #${l.outboxId}` : 'skipped',
    l.flags.join('; '),
  ]);
  const c = report.counts;
  return `${textTable(['ROW', 'OP', 'TARGET', 'SUMMARY', 'OUTBOX', 'FLAGS'], rows)}${c.new} new, ${c.queued} already queued, ${c.skipped} skipped (no change)\n`;
}

export function formatApply(report: ApplyReport): string {
  const rows = report.lines.map((l) => [String(l.id), l.op, l.state, l.summary, l.note]);
  const c = report.counts;
  const parts = [
    `${c.applied} applied`,
    ...(c.conflict > 0 ? [`${c.conflict} CONFLICT`] : []),
    ...(c.held > 0 ? [`${c.held} held`] : []),
    `${c.failed} failed`,
    `${c.unknown} unknown`,
    `${c.queued + c.sent + c.sending} still queued`,
    `${report.reconciled} reconciled`,
  ];
  if (report.orphans > 0) parts.push(`${report.orphans} left sending by a stopped apply, now unknown`);
  if (report.deletesWaiting > 0) parts.push(`${report.deletesWaiting} delete(s) not confirmed, not sent`);
  return `${rows.length > 0 ? textTable(['ID', 'OP', 'STATE', 'SUMMARY', 'NOTE'], rows) : 'nothing to send\n'}${parts.join(', ')}\n`;
}

/**
 * The service's own text of each refused item (`--show-service-text`), for the terminal only:
 * masked (src/util/mask.ts), control characters shown escaped; never stored or logged.
 */
export function formatServiceTexts(report: ApplyReport): string {
  const lines = report.lines.filter((l) => l.serviceText !== undefined);
  if (lines.length === 0) return '';
  const texts = lines.map((l) => `  #${l.id}: ${printable(l.serviceText ?? '', 2000)}`);
  return `the service's text (masked; shown here only, never kept):\n${texts.join('\n')}\n`;
}

const amount = (n: number | null) => (n === null ? 'none' : n.toFixed(2));

/** The NOTE of an outbox line: a held item's both balances and reason, else its error, resolution or flags. */
function noteOf(i: OutboxItem): string {
  if (i.state === 'conflict') return i.error ?? 'conflict';
  if (i.state === 'held') {
    const balances =
      i.op === 'payment'
        ? `balance ${amount(i.balance_planned)} planned, ${amount(i.balance_before)} read now; `
        : '';
    return `${balances}${i.hold_reason ?? ''}`;
  }
  return i.error ?? i.resolution ?? (JSON.parse(i.flags) as string[]).join('; ');
}

/** Above the confirmation threshold: ask on a terminal, refuse elsewhere (the plan says how). */
async function askToQueue(t: PlanTotals): Promise<boolean> {
  if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) return false;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const total = t.amount.toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const answer = await rl.question(`Queue ${t.rows} item(s), payments totalling $${total}? [y/N] `);
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

/** `ohs plan FILE`, `ohs apply`, `ohs outbox`: write-back (docs/writeback.md). */
export function registerWriteback(program: Command): void {
  registerPlan(program);
  registerApply(program);
  registerOutbox(program);
}

/** `ohs plan FILE`: validate, diff against the mirror, queue in the outbox. */
function registerPlan(program: Command): void {
  program
    .command('plan')
    .description('validate a change file, diff it against the mirror and queue it in the outbox')
    .argument('<file>', 'CSV, XLSX, JSON or NDJSON file; one change per row')
    .addOption(new Option('--op <op>', 'the operation of every row (else an op column)').choices(opNames))
    .option(
      '--sheet <name>',
      "the sheet of an .xlsx file to read, its name matched exactly (default: the workbook's only visible sheet)",
    )
    .option(
      '--yes',
      'queue a file above the confirmation threshold (writeback.confirmRows / confirmAmount) without asking',
    )
    .option(
      '--allow-overpayment',
      'queue payments above their invoice balance (flagged on the plan line and in the outbox) instead of refusing the file',
    )
    .option('--db <db>', DB_OPTION_HELP)
    .addHelpText('after', '\nExample: ohs plan examples/payment.csv --op payment')
    .action(
      async (
        file: string,
        flags: { op?: OpName; sheet?: string; yes?: boolean; allowOverpayment?: boolean },
        cmd: Command,
      ) => {
        const ctx = commandContext(cmd);
        const { config, logger } = ctx;
        // The plan is printed on stdout: the log's own lines ('planned') go to the log file only.
        summarised();
        const mirror = await ctx.mirror('write');
        try {
          const report = await planFile(mirror, file, {
            ...(flags.op === undefined ? {} : { op: flags.op }),
            ...(flags.sheet === undefined ? {} : { sheet: flags.sheet }),
            ...planSettings(config),
            allowOverpayment: flags.allowOverpayment === true,
            confirm: (t) => (flags.yes === true ? Promise.resolve(true) : askToQueue(t)),
          });
          logger.info({ file, ...report.counts }, 'planned');
          process.stdout.write(formatPlan(report));
        } finally {
          await mirror.close();
        }
      },
    );
}

/** `ohs apply`: send what the outbox holds, exactly once. */
function registerApply(program: Command): void {
  program
    .command('apply')
    .description('send the queued changes of the outbox, reconcile unknown outcomes, re-read what changed')
    .option('--yes', 'confirm permanent person deletions without asking')
    .option(
      '--release <id...>',
      'send these held items with this apply (the change is meant although the target changed since the plan; never above the balance read unless with --allow-overpayment); held again if this apply does not send them',
      (v: string, prev: number[] = []) => [...prev, intArg(1)(v)],
    )
    .option(
      '--allow-overpayment',
      'with --release: a released payment may exceed the balance read when it leaves',
    )
    .option(
      '--show-service-text',
      "show the service's own text of each refusal (masked) on this terminal; never stored or logged",
    )
    .option('--db <db>', DB_OPTION_HELP)
    .addHelpText(
      'after',
      '\nExamples: ohs apply --yes\n          ohs apply --release 12\n          ohs apply --release 12 --allow-overpayment',
    )
    .action(
      async (
        flags: { yes?: boolean; release?: number[]; allowOverpayment?: boolean; showServiceText?: boolean },
        cmd: Command,
      ) => {
        // The service's text is for a person at a terminal: refused (before anything is sent) where
        // stdout is a file or a pipe, which would keep it.
        if (flags.showServiceText === true && process.stdout.isTTY !== true)
          throw new UsageError(
            "--show-service-text shows the service's text on a terminal only, and stdout is not one: nothing was sent",
          );
        const release = flags.release ?? [];
        if (flags.allowOverpayment === true && release.length === 0)
          throw new UsageError(
            '--allow-overpayment is given with --release ID (at plan time: ohs plan --allow-overpayment)',
          );
        const ctx = commandContext(cmd);
        const { config, logger } = ctx;
        // What was sent is printed on stdout: the log's own lines ('applied') go to the log file only.
        summarised();
        const mirror = await ctx.mirror('write');
        const abort = new AbortController();
        const stop = () => abort.abort();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        // The service first, before a deletion is confirmed or anything is claimed.
        const client = createClient(config, logger);
        try {
          await verifyService(client);
          const deletes = await unconfirmedDeletes(mirror);
          let confirmed = flags.yes === true;
          if (deletes.length > 0 && !confirmed) {
            if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) {
              throw new UsageError(
                `${deletes.length} permanent person deletion(s) queued (outbox ${deletes.map((d) => `#${d.id}`).join(', ')}): pass --yes to confirm, nothing was sent`,
              );
            }
            process.stdout.write(
              textTable(
                ['ID', 'SUMMARY'],
                deletes.map((d) => [String(d.id), d.summary]),
              ),
            );
            const rl = createInterface({ input: process.stdin, output: process.stdout });
            const answer = await rl.question(`Delete these ${deletes.length} person(s) permanently? [y/N] `);
            rl.close();
            confirmed = /^y(es)?$/i.test(answer.trim());
            if (!confirmed) process.stdout.write('deletions not confirmed: they stay queued\n');
          }
          if (confirmed)
            await confirmDeletes(
              mirror,
              deletes.map((d) => d.id),
            );
          shareRateBudget(client, mirror);
          const report = await applyOutbox(client, mirror, {
            ...applySettings(config),
            deletes: 'confirmed',
            logger,
            signal: abort.signal,
            // Released under the apply's locks, for this apply only (held again if not sent).
            release: { ids: release, allowOverpayment: flags.allowOverpayment === true },
          });
          logger.info({ ...report.counts, reconciled: report.reconciled }, 'applied');
          process.stdout.write(formatApply(report));
          if (flags.showServiceText === true) process.stdout.write(formatServiceTexts(report));
          throwUnlessDone(report);
        } finally {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          await client.close();
          await mirror.close();
        }
      },
    );
}

/** `ohs outbox [resolve ID]`: list the outbox; decide an unknown outcome. */
function registerOutbox(program: Command): void {
  const outbox = program
    .command('outbox')
    .description('list the write-back outbox; resolve an item whose outcome is unknown')
    .addOption(new Option('--state <state>', 'only items in this state').choices(outboxStates))
    .option('--json', 'JSON instead of a table')
    .option('--db <db>', DB_OPTION_HELP)
    .addHelpText('after', '\nExamples: ohs outbox --state unknown\n          ohs outbox resolve 12 --retry')
    .action(async (flags: { state?: OutboxState; json?: boolean }, cmd: Command) => {
      const mirror = await commandContext(cmd).mirror('write');
      try {
        const items = await listOutbox(mirror, flags.state);
        if (flags.json === true) {
          // Personal data is never printed, whatever the outbox still holds to send it.
          const json = (text: string | null) => (text === null ? null : maskDeep(JSON.parse(text)));
          const out = items.map((i) => ({
            ...i,
            body: json(i.body),
            flags: json(i.flags),
            request: json(i.request),
            response: json(i.response),
            verify: json(i.verify),
            evidence: json(i.evidence),
          }));
          process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
          return;
        }
        process.stdout.write(
          textTable(
            ['ID', 'STATE', 'OP', 'SUMMARY', 'TRIES', 'FILE:ROW', 'NOTE'],
            items.map((i) => [
              String(i.id),
              i.state,
              i.op,
              i.summary,
              String(i.attempts),
              `${i.file}:${i.row}`,
              noteOf(i),
            ]),
          ),
        );
      } finally {
        await mirror.close();
      }
    });
  outbox
    .command('resolve')
    .description(
      'decide an item: --applied (an unknown one was carried out), --retry (send again) or --abandon (a held, failed or queued one: never send it)',
    )
    .argument('<id>', 'outbox item id', intArg(1))
    .option('--applied', 'it was carried out: mark it applied')
    .option('--retry', 'it was not: queue it to be sent by the next apply')
    .option('--abandon', 'it is not wanted any more: never send it (held, failed or queued items)')
    .option('--db <db>', DB_OPTION_HELP)
    .action(
      async (id: number, flags: { applied?: boolean; retry?: boolean; abandon?: boolean }, cmd: Command) => {
        const chosen = (['applied', 'retry', 'abandon'] as const).filter((d) => flags[d] === true);
        const decision = chosen[0];
        if (chosen.length !== 1 || decision === undefined)
          throw new UsageError('give exactly one of --applied, --retry or --abandon');
        const mirror = await commandContext(cmd).mirror('write');
        try {
          const item = await resolveItem(mirror, id, decision);
          process.stdout.write(`outbox #${item.id} (${item.summary}) is now ${item.state}\n`);
        } finally {
          await mirror.close();
        }
      },
    );
}
