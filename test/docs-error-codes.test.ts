import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every error code the README and docs/*.md name exists in the code, so an alert filter or a
 * script copied from a doc matches what the tool prints (`ohs: CODE: ...`, `"errorCode":"CODE"`).
 */
const REPO = fileURLToPath(new URL('..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The codes the code can print or record: of the error classes, the run ledger's, main's, bin/ohs.js's. */
function knownCodes(): Set<string> {
  const known = new Set<string>();
  const add = (text: string, re: RegExp) => {
    for (const m of text.matchAll(re)) if (m[1] !== undefined) known.add(m[1]);
  };
  for (const file of sources(join(REPO, 'src'))) {
    const text = readFileSync(file, 'utf8');
    add(text, /super\(\s*'([A-Z][A-Z0-9_]+)'/g);
    add(text, /error_code: '([A-Z][A-Z0-9_]+)'/g);
    add(text, /ohs: ([A-Z][A-Z0-9_]+):/g);
    // A file declaring an error class: every code literal in it (a code passed on, a union of codes).
    if (/class \w+ extends (OhsError|\w+Error)\b/.test(text)) add(text, /'([A-Z][A-Z0-9_]{2,})'/g);
  }
  // The launcher prints its own (`NOT_BUILT`: no dist/ to run).
  add(readFileSync(join(REPO, 'bin', 'ohs.js'), 'utf8'), /ohs: ([A-Z][A-Z0-9_]+):/g);
  return known;
}

/** Where a doc names an error code: `ohs: CODE:`, an errorCode, the exit-code table, "(`CODE`, exit N)". */
function claimedCodes(): Map<string, string> {
  const claimed = new Map<string, string>();
  const docs = ['README.md', ...readdirSync(join(REPO, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
    f.endsWith('.md'),
  );
  for (const doc of docs) {
    const text = readFileSync(join(REPO, doc), 'utf8');
    const add = (re: RegExp, within = text) => {
      for (const m of within.matchAll(re)) if (m[1] !== undefined) claimed.set(m[1], doc);
    };
    add(/ohs: ([A-Z][A-Z0-9_]+):/g);
    add(/"errorCode":\s*"([A-Za-z_]+)"/g);
    add(/error_code[ =:]+[`'"]([A-Z][A-Z0-9_]+)[`'"]/g);
    add(/`([A-Z][A-Z0-9_]+)`,? \(?exit/g);
    const table = text.split('\n').filter((l) => /^\| [0-9] \|/.test(l));
    add(/`([A-Z][A-Z0-9_]+)`/g, table.join('\n'));
  }
  return claimed;
}

describe('error codes in the docs', () => {
  it('every code a doc names is one the code prints or records', () => {
    const known = knownCodes();
    const claimed = claimedCodes();
    expect(claimed.size).toBeGreaterThan(15);
    const missing = [...claimed]
      .filter(([code]) => !known.has(code))
      .map(([code, doc]) => `${code} (${doc})`);
    expect(missing).toEqual([]);
  });

  it("the codes of the service check, of a full disk and of a missing build are in the README's exit codes", () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const table = readme
      .split('\n')
      .filter((l) => /^\| [0-9] \|/.test(l))
      .join('\n');
    for (const code of [
      'UNREACHABLE',
      'SERVICE_NOT_FOUND',
      'NOT_THE_SERVICE',
      'WRONG_SCHEME',
      'TLS_UNTRUSTED',
      'INVALID_REQUEST',
      'UNAUTHORIZED',
      'DISK_FULL',
      'NOT_BUILT',
    ])
      expect(table, code).toContain(`\`${code}\``);
  });
});
