import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openMirror } from '../src/mirror/index.js';
import { runOhs } from './helpers/cli.js';

/**
 * A name chosen from a known set, mistyped, is answered with the closest name on the one error
 * line (no literal `\n` in it): commands, options, option values, report, job and stream names,
 * operation names, input file headers. And `--help` names every report format.
 */
describe('did you mean', () => {
  let dir: string;
  let db: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ohs-dym-'));
    db = join(dir, 'ohs.sqlite');
    await (await openMirror(db)).close();
    writeFileSync(join(dir, 'amount.csv'), 'InvoiceId,amount\n240019,5.00\n');
    writeFileSync(join(dir, 'op.csv'), 'op,InvoiceId,amountToPay\npaymnt,240019,5.00\n');
  });

  const cases: [string[], string][] = [
    [['snyc'], "unknown command 'snyc' (did you mean sync?)"],
    [['report', 'complaince'], "unknown report 'complaince' (did you mean compliance?)"],
    [['report', 'compliance', '--fomat', 'csv'], "unknown option '--fomat' (did you mean --format?)"],
    [
      ['report', 'compliance', '--format', 'xlss'],
      "'xlss' is not one of xlsx, csv, html (did you mean xlsx?)",
    ],
    [['run', 'nightlly'], "unknown job 'nightlly' (did you mean nightly?)"],
    [['sync', '--ful'], "unknown option '--ful' (did you mean --full?)"],
    [['sync', 'invoce'], "unknown stream 'invoce' (did you mean invoice?)"],
    [['plan', 'amount.csv', '--op', 'paymnt'], 'Allowed choices are payment,'],
    [['plan', 'amount.csv', '--op', 'paymnt'], '(did you mean payment?)'],
    [
      ['plan', 'amount.csv', '--op', 'payment'],
      'amount: unknown column (not a field of payment): did you mean amountToPay?',
    ],
    [['plan', 'op.csv'], "op: 'paymnt' is not one of payment,"],
    [['plan', 'op.csv'], '(did you mean payment?)'],
  ];

  it.each(cases)('ohs %j', async (args, expected) => {
    const r = await runOhs([...args, ...(args[0] === 'snyc' || args[0] === 'run' ? [] : ['--db', db])], {
      cwd: dir,
      env: { OHS_TOKEN: 'x', OHS_DB: '' },
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(expected);
    expect(r.stderr).not.toContain('\\n');
  });

  it('a report option in config, mistyped: cron, run and report refuse it at start, naming the report', async () => {
    const here = mkdtempSync(join(tmpdir(), 'ohs-dym-config-'));
    mkdirSync(join(here, 'config'));
    writeFileSync(
      join(here, 'config', 'local.json'),
      JSON.stringify({ db: 'ohs.sqlite', reports: { options: { recentOrderDay: 45 } } }),
    );
    for (const args of [['cron'], ['run', 'nightly'], ['run', 'reports'], ['report', 'all']]) {
      const r = await runOhs(args, { cwd: here, env: { OHS_TOKEN: 'x', OHS_DB: '' }, timeoutMs: 30_000 });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      const lines = r.stderr.split('\n').filter((l) => l !== '');
      expect(lines[0], args.join(' ')).toBe(
        'ohs: CONFIG_INVALID: config reports.options.recentOrderDay: no report has this option; did you mean recentOrderDays? (reports.options.recentOrderDays, an option of accounts-at-risk)',
      );
      // Before anything ran: no mirror, no report folder, nothing on stdout.
      expect(readdirSync(here), args.join(' ')).toEqual(['config']);
      expect(r.stdout, args.join(' ')).toBe('');
    }
  });

  it('a key an earlier version read is named as removed, never offered a near key of another meaning', async () => {
    const here = mkdtempSync(join(tmpdir(), 'ohs-dym-removed-'));
    mkdirSync(join(here, 'config'));
    writeFileSync(join(here, 'config', 'local.json'), JSON.stringify({ sync: { probeMinIds: 20000 } }));
    const r = await runOhs(['config'], { cwd: here, env: { OHS_TOKEN: 'x', OHS_DB: '' } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.split('\n').filter((l) => l !== '')).toEqual([
      `ohs: CONFIG_INVALID: configuration key sync.probeMinIds in ${join(here, 'config', 'local.json')} was removed (probing above the highest known id now reaches as far again as the span of ids the stream holds): delete it`,
    ]);
  });

  it("a report's own flag given to a report that does not declare it: one line naming the report, exit 2, nothing written", async () => {
    const here = mkdtempSync(join(tmpdir(), 'ohs-flag-'));
    const r = await runOhs(['report', 'compliance', '--from', '2026-01-01', '--db', db, '--out', 'out'], {
      cwd: here,
      env: { OHS_TOKEN: 'x', OHS_DB: '' },
    });
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines).toEqual([
      "ohs: USAGE: --from: report 'compliance' does not take it (ar-rollforward does: ohs report ar-rollforward --from <instant>) (see ohs report --help)",
    ]);
    expect(readdirSync(here)).toEqual([]);
    expect(r.stdout).toBe('');
    // The help lists the flag with the report that takes it.
    const help = (await runOhs(['report', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--from <instant> ar-rollforward: start of the period');
    expect(help).toContain('ohs report ar-rollforward --from 2026-10-01 --to 2026-11-01');
  });

  it('--help names every report format', async () => {
    for (const args of [['--help'], ['report', '--help']]) {
      const r = await runOhs(args);
      const text = r.stdout.replace(/\s+/g, ' ');
      expect(text, args.join(' ')).toMatch(/into xlsx, csv, html/);
    }
  });
});
