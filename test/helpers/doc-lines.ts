import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The command lines of the docs, by one rule (test/docs-commands.test.ts checks their names and
 * flags, test/docs-run.test.ts runs them): in README.md and docs/*.md, inside a fenced block that
 * is a shell block (opened by a bare fence or one marked `sh`, `bash` or `shell`), every line that
 * calls `ohs` as a command (`node bin/ohs.js …`, `ohs …`, `$ ohs …`, after `VAR=value` or `&&`), its
 * trailing `# comment` removed. Lines of other tools (`sqlite3`, `psql`) are not ours.
 */
export const REPO = fileURLToPath(new URL('../..', import.meta.url));

const DOCS = ['README.md', ...readdirSync(join(REPO, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith('.md'),
);

export interface DocLine {
  /** `README.md`, `docs/commands.md`. */
  doc: string;
  /** Its line number, from 1. */
  at: number;
  /** The line as written, trimmed, without its comment. */
  text: string;
}

/** Every documented command line, in the order of the files (README first) and of the lines. */
export function docLines(): DocLine[] {
  const found: DocLine[] = [];
  for (const doc of DOCS) {
    let inShell = false;
    readFileSync(join(REPO, doc), 'utf8')
      .split('\n')
      .forEach((raw, i) => {
        if (raw.startsWith('```')) {
          inShell = !inShell && /^```(sh|bash|shell)?\s*$/.test(raw);
          return;
        }
        const text = raw.replace(/\s+#.*$/, '').trim();
        if (!inShell || text.startsWith('sqlite3') || text.startsWith('psql')) return;
        if (/(^|\s)(node bin\/ohs\.js|ohs)( |$)/.test(text))
          found.push({ doc, at: i + 1, text: text.replace(/^\$ /, '') });
      });
  }
  return found;
}

/** One command of a line: its `VAR=value` prefixes, the program (`ohs`, `npm`), its words. */
interface DocCommand {
  env: Record<string, string>;
  program: string;
  args: string[];
}

/**
 * A line as the shell would split it, for the forms the docs use: commands joined by `&&`, a
 * trailing `&` (started in the background), `VAR=value` prefixes, `node bin/ohs.js` as `ohs`, words in
 * single quotes kept whole.
 */
export function splitLine(text: string): { commands: DocCommand[]; background: boolean } {
  const background = /\s&$/.test(text);
  const body = background ? text.replace(/\s&$/, '') : text;
  const commands = body.split(/\s&&\s/).map((part) => {
    const words = [...part.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
    const env: Record<string, string> = {};
    while (words.length > 0 && /^[A-Z_]+=/.test(words[0] ?? '')) {
      const [name, ...value] = (words.shift() ?? '').split('=');
      env[name ?? ''] = value.join('=');
    }
    if (words[0] === 'node' && words[1] === 'bin/ohs.js') words.splice(0, 2, 'ohs');
    return { env, program: words.shift() ?? '', args: words };
  });
  return { commands, background };
}
