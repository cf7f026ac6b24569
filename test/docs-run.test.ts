import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliResult, OHS_BIN, runOhs } from './helpers/cli.js';
import { type DocLine, docLines, REPO, splitLine } from './helpers/doc-lines.js';

/**
 * The docs, run: every command line of README.md and docs/*.md (the rule: test/helpers/doc-lines.ts)
 * is run in the order written (a line written twice, once), in one fresh folder (mode 0700, a copy of examples/, an empty
 * config/), against the sandbox the README starts (`ohs sim`, a real process over real HTTP) and
 * the SQLite mirror the README's own steps sync, and ends as the docs say: exit 0, or the code a
 * line shows on purpose. A new line is run by default; one that cannot run here must be named in
 * NOT_RUN with the reason. What the line needs that the docs leave to the reader (the sandbox's
 * port, a real service's URL, dates the fresh mirror has history for, the reader's own files) is
 * changed by the explicit table REWRITES, and so is the sandbox's size, and nothing else. The claims a test can check (lines
 * printed, one line, nothing printed, files written) are checked in CLAIMS. The sandbox is the
 * one the README starts, at a tenth of its default size (the lines, not the data's size, are the
 * subject: about a fifth of the CPU of the full size).
 * `OHS_DOCS_RUN_TIMES=1` prints each line's seconds.
 */

/** Lines not run, by exact text (comment removed), with the reason. */
const NOT_RUN: Record<string, string> = {};

/** The sandbox's tokens as the README gives them (`export OHS_TOKEN=sim-write-token`). */
const TOKEN = 'sim-write-token';

interface Ctx {
  /** The sandbox's base URL. */
  url: string;
  /** An instant the fresh mirror has history for (after the first sync), ISO. */
  synced: string;
  /** Now, ISO (whole seconds). */
  now: () => string;
}

const today = () => new Date().toISOString().slice(0, 10);
const isoSeconds = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

/**
 * What a line needs that the docs leave to the reader, replaced word for word, each with its
 * reason. Applied to every line in this order.
 */
const REWRITES: { from: string | RegExp; to: (ctx: Ctx) => string; why: string }[] = [
  {
    from: /^npm install && /,
    to: () => '',
    why: 'npm install is the checkout’s own install: measured once by hand (the README’s figures)',
  },
  {
    from: /^(node bin\/ohs\.js|ohs) sim (?!.*--port)/,
    to: () => 'node bin/ohs.js sim --port 0 ',
    why: 'a sandbox listens on a free port, not 8787 (which another run may hold)',
  },
  {
    from: '--port 8787',
    to: () => '--port 0',
    why: 'the README’s sandbox on a free port; its URL is given to the other lines as OHS_BASE_URL',
  },
  {
    from: /\b(?:node bin\/ohs\.js|ohs) sim(?= --| &|$)/,
    to: () => 'node bin/ohs.js sim --scale 0.1',
    why: 'a sandbox of a tenth of the default size: what is checked is that each line ends as the docs say, not the data’s size (CONTRIBUTING: a test whose subject is not the size runs small); the full size is synced in test/writeback/examples.test.ts',
  },
  {
    from: /\b(?:node bin\/ohs\.js|ohs) demo(?= --| &|$)/,
    to: () => 'node bin/ohs.js demo --scale 0.1',
    why: 'the same for the demo’s built-in sandbox',
  },
  { from: 'https://ohs.example.com', to: (c) => c.url, why: 'the live service is the sandbox here' },
  { from: 'OHS_TOKEN=...', to: () => `OHS_TOKEN=${TOKEN}`, why: 'the token, elided in the docs' },
  {
    from: /--as-of 2026-06-30/,
    to: () => `--as-of ${today()}`,
    why: 'a fresh mirror’s history begins today: an earlier date is refused (AS_OF_BEFORE_HISTORY, checked below)',
  },
  { from: /--as-of-time 2026-06-30T[\d:]+Z/, to: (c) => `--as-of-time ${c.synced}`, why: 'the same' },
  {
    from: '--from 2026-10-01 --to 2026-11-01',
    to: (c) => `--from ${c.synced} --to ${c.now()}`,
    why: 'the same: a period within the fresh mirror’s history',
  },
];

/** Lines that end otherwise than exit 0 on purpose: the exit status and the code of the first line. */
const EXPECT: Record<string, { code: number; error: string; why: string }> = {
  'node bin/ohs.js outbox resolve 12 --applied': {
    code: 2,
    error: 'OUTBOX_ITEM',
    why: '12 stands for an unknown item; the outbox here holds none (made in test/writeback/), so it is refused by name',
  },
  'node bin/ohs.js outbox resolve 12 --retry': { code: 2, error: 'OUTBOX_ITEM', why: 'the same' },
  'node bin/ohs.js apply --release 12': { code: 2, error: 'OUTBOX_ITEM', why: 'the same: no held item 12' },
  'node bin/ohs.js apply --release 12 --allow-overpayment': {
    code: 2,
    error: 'OUTBOX_ITEM',
    why: 'the same: no held item 12',
  },
  'node bin/ohs.js outbox resolve 12 --abandon': { code: 2, error: 'OUTBOX_ITEM', why: 'the same' },
};

/** Files a line names that the docs leave to the reader, made in the folder first. */
async function readersFiles(dir: string): Promise<void> {
  // `ohs sync invoice --ids invoice=ids.txt`: ids to read again (the two examples/payment.csv pays).
  writeFileSync(join(dir, 'ids.txt'), '240019\n240032\n');
  // `ohs plan changes.xlsx`: the payments of examples/payment.csv as a workbook with an op column.
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('changes');
  sheet.addRow(['op', 'InvoiceId', 'amountToPay', 'PersonId']);
  sheet.addRow(['payment', 240019, 25, 70001]);
  sheet.addRow(['payment', 240032, 10.5, null]);
  await book.xlsx.writeFile(join(dir, 'changes.xlsx'));
}

/** The report names `ohs report --list` prints, one a line. */
let reportNames: string[] = [];
const names = (r: CliResult) =>
  r.stdout
    .trimEnd()
    .split('\n')
    .map((l) => l.split(/\s+/)[0] ?? '');

/**
 * The lines a terminal shows, and each report's verdict among them: at most 40 lines, and room
 * for one more report's line while the registry has fewer than seven (a report added stays in).
 */
function short(r: CliResult, verdictLine: (name: string) => RegExp): void {
  const printed = `${r.stdout}${r.stderr}`.trimEnd().split('\n');
  const room = Math.max(0, 7 - reportNames.length);
  expect(printed.length + room, `${r.stdout}${r.stderr}`).toBeLessThanOrEqual(40);
  for (const name of reportNames) expect(`${r.stdout}${r.stderr}`, name).toMatch(verdictLine(name));
}

const VERDICT = '(Action needed|Needs attention|OK)';

/** The claims the docs make of a line's result, by exact line text. */
const CLAIMS: Record<string, (r: CliResult, dir: string) => void> = {
  'npm install && node bin/ohs.js demo': (r, dir) => {
    // docs/commands.md: "its whole output is under 40 lines", ending with the dashboard's path.
    expect(`${r.stdout}${r.stderr}`.trimEnd().split('\n').length).toBeLessThan(40);
    expect(r.stdout).toContain(join(dir, 'demo-out', 'index.html'));
  },
  'node bin/ohs.js plan examples/payment.csv --op payment': (r) =>
    expect(r.stdout).toMatch(/pay 25\.00 on invoice 240019/),
  'node bin/ohs.js apply': (r) =>
    expect(r.stdout).toMatch(/\d+ applied, 0 failed, 0 unknown|nothing to send/),
  'node bin/ohs.js report all': (r) =>
    short(r, (name) => new RegExp(`^${name}: \\d+ detail rows?, .*: ${VERDICT}`, 'm')),
  'node bin/ohs.js report --list': (r) => expect(names(r)).toEqual(reportNames),
  'node bin/ohs.js status --check --max-age 26h': (r) => expect(r.stdout).toMatch(/^OHS OK - [^\n]*\n$/),
  'ohs status --check': (r) =>
    // docs/monitoring.md: `OHS OK - 9 streams fresh (oldest invoice, 2h ago), last sync run 41 ok | ...`
    expect(r.stdout).toMatch(
      /^OHS OK - 9 streams fresh \(oldest \w+, \w+ ago\), last sync run \d+ ok \| [^\n]+\n$/,
    ),
  // The rewrite gives today's date: the files are named by it.
  'node bin/ohs.js report all --as-of 2026-06-30': (_r, dir) =>
    expect(existsSync(join(dir, 'out', `compliance-${today()}.xlsx`))).toBe(true),
  'node bin/ohs.js report all --quiet': (r) => expect(r).toMatchObject({ stdout: '', stderr: '' }),
  'node bin/ohs.js report all --format html,csv && node bin/ohs.js dashboard': (_r, dir) =>
    expect(existsSync(join(dir, 'out', 'index.html'))).toBe(true),
  'node bin/ohs.js run nightly': (r) =>
    short(r, (name) => new RegExp(`^ {2}report ${name}: ${VERDICT}`, 'm')),
  'node bin/ohs.js report unpaid-invoices --org 1007 1013 --format csv --out ar': (_r, dir) =>
    expect(existsSync(join(dir, 'ar'))).toBe(true),
};

/** The README's `export VAR=value` lines and its `cat > FILE <<'END'` files, made in the folder. */
function readmeSetup(dir: string, env: NodeJS.ProcessEnv): void {
  const lines = readFileSync(join(REPO, 'README.md'), 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    const heredoc = /^cat > (\S+) <<'(\w+)'$/.exec(line);
    if (heredoc !== null) {
      const end = lines.indexOf(heredoc[2] ?? '', i + 1);
      writeFileSync(join(dir, heredoc[1] ?? ''), `${lines.slice(i + 1, end).join('\n')}\n`);
      i = end;
    }
    const exported = /^export (\w+)=(\S+)$/.exec(line);
    if (exported !== null) env[exported[1] ?? ''] = exported[2];
  }
}

/** Starts a long-running command, waits for its first line on stdout, stops it; its result. */
async function startAndStop(
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv },
  signal: NodeJS.Signals,
) {
  const { child, first } = await start(args, opts);
  child.kill(signal);
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, first };
}

async function start(
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ child: ChildProcess; first: string }> {
  const child = spawn(process.execPath, [OHS_BIN, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const first = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) resolve(buf.slice(0, buf.indexOf('\n')));
    });
    child.once('close', (code) => reject(new Error(`ohs ${args.join(' ')} exited ${code}: ${err}`)));
  });
  return { child, first };
}

/** The line after the rewrites (and the rewrites that applied). */
function rewrite(text: string, ctx: Ctx): string {
  let out = text;
  for (const r of REWRITES)
    out = out.replace(r.from, () => {
      rewritten.add(r);
      return r.to(ctx);
    });
  return out;
}

/** The rewrites that applied to some line: one that applies to none is stale. */
const rewritten = new Set<(typeof REWRITES)[number]>();

describe('the docs, run against the sandbox', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ohs-docs-run-'));
  chmodSync(dir, 0o700);
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) c.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('every command line ends as the docs say', async () => {
    cpSync(join(REPO, 'examples'), join(dir, 'examples'), { recursive: true });
    mkdirSync(join(dir, 'config')); // a clone has config/ (default.json)
    await readersFiles(dir);
    const env: NodeJS.ProcessEnv = { OHS_BASE_URL: '', OHS_DB: '', OHS_TOKEN: '', OHS_TOKEN_FILE: '' };
    env.OHS_LOG_FORMAT = '';
    env.OHS_LOG_LEVEL = '';
    readmeSetup(dir, env);
    expect(env.OHS_TOKEN).toBe(TOKEN);
    reportNames = names(await runOhs(['report', '--list'], { cwd: dir, env }));
    expect(reportNames.length).toBeGreaterThanOrEqual(6);
    const ctx: Ctx = { url: '', synced: '', now: () => isoSeconds(new Date()) };
    const lines = docLines();
    expect(lines.length).toBeGreaterThan(50);
    const ran: string[] = [];
    const again: string[] = [];
    const problems: string[] = [];
    for (const line of lines) {
      // A line written twice (`node bin/ohs.js apply`; after the rewrites, `npm install && node bin/ohs.js demo`
      // and `node bin/ohs.js demo`) is run where it first appears.
      if (NOT_RUN[line.text] !== undefined) continue;
      if (ran.includes(rewrite(line.text, ctx))) {
        again.push(line.text);
        continue;
      }
      const started = Date.now();
      const problem = await runLine(line, ctx, env, dir, children);
      if (process.env.OHS_DOCS_RUN_TIMES)
        console.info(`${((Date.now() - started) / 1000).toFixed(1)} s ${line.text}`);
      if (problem !== undefined) problems.push(`${line.doc}:${line.at}: ${line.text}\n  ${problem}`);
      ran.push(rewrite(line.text, ctx));
    }
    expect(problems).toEqual([]);
    expect(REWRITES.filter((r) => !rewritten.has(r)).map((r) => String(r.from))).toEqual([]);
    expect(Object.keys(EXPECT).filter((t) => !lines.some((l) => l.text === t))).toEqual([]);
    expect(ran.length + again.length).toBe(lines.filter((l) => NOT_RUN[l.text] === undefined).length);
    // The dates rewritten above, as written, on this fresh mirror: refused as docs/commands.md says.
    const early = await runOhs(['report', 'all', '--as-of', '2026-06-30'], { cwd: dir, env });
    expect(early.code).toBe(2);
    expect(early.stderr).toMatch(/^ohs: AS_OF_BEFORE_HISTORY: --as-of 2026-06-30: [^\n]+\n$/);
  }, 900_000);
});

/** Runs one documented line; a problem found, or undefined. */
async function runLine(
  line: DocLine,
  ctx: Ctx,
  env: NodeJS.ProcessEnv,
  dir: string,
  children: ChildProcess[],
): Promise<string | undefined> {
  const text = rewrite(line.text, ctx);
  const { commands, background } = splitLine(text);
  let last: CliResult = { code: 0, stdout: '', stderr: '' };
  for (const cmd of commands) {
    if (cmd.program !== 'ohs') return `runs ${cmd.program}, not ohs: add it to NOT_RUN or REWRITES`;
    const opts = { cwd: dir, env: { ...env, ...cmd.env } };
    if (cmd.args[0] === 'sim') {
      if (background && ctx.url === '') {
        // The README's sandbox: kept running for every line after it.
        const { child, first } = await start(cmd.args, opts);
        children.push(child);
        ctx.url = first;
        env.OHS_BASE_URL = first;
      } else {
        const { code, first } = await startAndStop(cmd.args, opts, 'SIGINT');
        if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(first)) return `first line ${first}, not the URL`;
        if (code !== 0) return `exit ${code} on Ctrl-C`;
      }
      continue;
    }
    if (cmd.args[0] === 'cron') {
      // The worker runs until SIGTERM: started, its first line read, stopped; it exits 0.
      const { code, first } = await startAndStop(cmd.args, opts, 'SIGTERM');
      if (!first.startsWith('cron worker started: ')) return `first line ${first}`;
      if (code !== 0) return `exit ${code} on SIGTERM`;
      continue;
    }
    last = await runOhs(cmd.args, { ...opts, timeoutMs: 300_000 });
    if (cmd.args[0] === 'sync' && ctx.synced === '' && last.code === 0) {
      await new Promise((r) => setTimeout(r, 1000));
      ctx.synced = isoSeconds(new Date());
    }
    const expected = EXPECT[line.text];
    if (expected !== undefined) {
      const first = last.stderr.split('\n')[0] ?? '';
      if (last.code !== expected.code || !first.startsWith(`ohs: ${expected.error}: `))
        return `exit ${last.code}, not ${expected.code} ${expected.error}: ${first}`;
    } else if (last.code !== 0)
      return `exit ${last.code}: ${last.stderr.split('\n').slice(0, 3).join(' / ')}`;
  }
  try {
    CLAIMS[line.text]?.(last, dir);
  } catch (e) {
    return (e as Error).message.split('\n')[0];
  }
  return undefined;
}
