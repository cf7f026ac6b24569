import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runOhs } from './helpers/cli.js';
import { docLines } from './helpers/doc-lines.js';

/**
 * The docs match the tool: every `ohs` command line in a shell block of README.md and docs/*.md
 * names a command the CLI has and only options its `--help` lists, and the claims a test can
 * check hold (option help, accepted date forms). The claims that need a synced mirror (the
 * demo's and the nightly job's line counts, `--quiet`) are checked where that mirror is made:
 * test/jobs/terminal.test.ts and test/jobs/jobs.test.ts.
 */
const REPO = fileURLToPath(new URL('..', import.meta.url));

/** The `ohs` command lines of the docs, by the rule of test/helpers/doc-lines.ts: [file, line]. */
const commandLines = (): [string, string][] =>
  docLines().map((l) => [
    l.doc,
    l.text
      .slice(l.text.search(/(^|\s)(node bin\/ohs\.js|ohs) /))
      .trim()
      .replace(/^node bin\/ohs\.js /, 'ohs '),
  ]);

/** Command words (one or two: `policy import`) and the `--flags` of one command line. */
function parse(line: string): { words: string[]; flags: string[] } {
  const tokens = line
    .split(/\s+/)
    .slice(1)
    .filter((t) => !t.startsWith("'") && !t.startsWith('"'));
  const words: string[] = [];
  for (const t of tokens) {
    if (t.startsWith('-') || /[./=&|;<>]/.test(t) || /^\d/.test(t) || t.toUpperCase() === t) break;
    words.push(t);
  }
  const flags = tokens.filter((t) => /^--[a-z]/.test(t)).map((t) => t.split('=')[0] ?? t);
  return { words, flags };
}

describe('the command lines of the docs', () => {
  const lines = commandLines();

  it('are found', () => {
    expect(lines.length).toBeGreaterThan(20);
  });

  it('name commands the CLI has, with options their --help lists', async () => {
    const globalHelp = (await runOhs(['--help'])).stdout;
    const helps = new Map<string, string>();
    const problems: string[] = [];
    for (const [doc, line] of lines) {
      const { words, flags } = parse(line);
      // The longest prefix of the words that is a command (`report all`: `report`; `policy import`).
      let help: string | undefined;
      for (let n = Math.min(2, words.length); n >= 1 && help === undefined; n--) {
        const key = words.slice(0, n).join(' ');
        if (!helps.has(key)) {
          const r = await runOhs([...words.slice(0, n), '--help']);
          helps.set(key, r.code === 0 ? r.stdout : '');
        }
        const text = helps.get(key) ?? '';
        if (text !== '' && text.includes(`Usage: ohs ${key}`)) help = text;
      }
      if (words.length > 0 && help === undefined) {
        problems.push(`${doc}: ${line}: no command ${words.join(' ')}`);
        continue;
      }
      for (const flag of flags) {
        const listed = new RegExp(`(^|[\\s,])${flag}(?![\\w-])`, 'm');
        if (!listed.test(help ?? '') && !listed.test(globalHelp))
          problems.push(`${doc}: ${line}: ${flag} is no option`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('ohs sim --help says that --no-strict-bodies switches the check off', async () => {
    const help = (await runOhs(['sim', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toMatch(/--no-strict-bodies Switch off \(on by default\): Reject unknown fields/);
  });

  it('a usage error names the help of its command, as docs/commands.md says', async () => {
    const doc = readFileSync(join(REPO, 'docs', 'commands.md'), 'utf8');
    expect(doc).toContain(
      'a usage error names the help of\nthe command it was about (`(see ohs report --help)`)',
    );
    const r = await runOhs(['report', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("ohs: USAGE: unknown option '--bogus' (see ohs report --help)\n");
  });

  it('the help of --db says how to give a PostgreSQL password, as docs/security.md says', async () => {
    const doc = readFileSync(join(REPO, 'docs', 'security.md'), 'utf8');
    expect(doc).toContain(
      '`--help` of every `--db` says to give them through `OHS_DB` or `~/.pgpass`, never in argv',
    );
    const top = (await runOhs(['--help'])).stdout;
    // The commands `ohs --help` lists (two spaces, the name), then each one's help.
    const commands = [...(top.split('\nCommands:\n')[1] ?? '').matchAll(/^ {2}([a-z]+)\b/gm)]
      .map((m) => m[1] ?? '')
      .filter((c) => c !== 'help');
    expect(commands).toContain('demo');
    for (const command of ['', ...commands]) {
      const text = (await runOhs(command === '' ? ['--help'] : [command, '--help'])).stdout;
      // The --db option's block: its line and the indented lines that continue it.
      const db = /^ {2}--db <\w+>(.*\n(?: {4,}.*\n)*)/m.exec(text)?.[1]?.replace(/\s+/g, ' ');
      if (db !== undefined)
        expect(db, `ohs ${command} --help`).toMatch(/password through .*~\/\.pgpass.*never in --db/);
    }
  });

  it('--as-of takes YYYY-MM-DD; 11/28/2026 is refused, as docs/reports.md says', async () => {
    const doc = readFileSync(join(REPO, 'docs', 'reports.md'), 'utf8');
    expect(doc).toContain('`--as-of` takes `YYYY-MM-DD` only (`11/28/2026` is refused');
    const r = await runOhs(['report', 'all', '--as-of', '11/28/2026', '--db', join(REPO, 'no-such.sqlite')]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(/^ohs: (USAGE|CONFIG_INVALID|REPORT_PARAM_INVALID): .*--as-of/);
  });
});
