import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { SimRecord } from '../../src/sim/index.js';

/**
 * Every byte a mirror keeps, as text: on SQLite the file and its -wal/-shm/-journal siblings
 * read raw (deleted pages included), on PostgreSQL the database as `pg_dump` writes it.
 */
export function mirrorBytes(target: string): string {
  if (target.startsWith('postgres')) {
    const bin = process.env.OHS_PG_BIN ?? '/usr/lib/postgresql/15/bin';
    return execFileSync(join(bin, 'pg_dump'), ['--data-only', '--no-owner', target], {
      maxBuffer: 512 * 1024 * 1024,
    }).toString('latin1');
  }
  const dir = dirname(target);
  if (!existsSync(target)) throw new Error(`no mirror at ${target}`);
  return readdirSync(dir)
    .filter((f) => f.startsWith(basename(target)))
    .map((f) => readFileSync(join(dir, f)).toString('latin1'))
    .join('\n');
}

/**
 * The personal data of the sandbox's applicants, each in every form a leak could take: an SSN's
 * nine digits and its dashed form, a birth date as YYYY-MM-DD and YYYYMMDD, a licence number with
 * and without its letter.
 */
export function personalData(applicants: readonly SimRecord[]): string[] {
  const out = new Set<string>();
  const digits = (v: unknown) => JSON.stringify(v).replace(/\D/g, '');
  for (const a of applicants) {
    const ssn = digits(a.ssn);
    if (ssn.length === 9) {
      out.add(ssn);
      out.add(`${ssn.slice(0, 3)}-${ssn.slice(3, 5)}-${ssn.slice(5)}`);
    }
    if (typeof a.dob === 'string') {
      out.add(a.dob);
      out.add(a.dob.replace(/-/g, ''));
    }
    const licence = digits(a.id_licenseNumber);
    if (licence.length >= 7) out.add(licence);
  }
  return [...out];
}

/** The items of `secrets` found in `text` as whole numbers (not inside a longer run of digits). */
export function foundIn(text: string, secrets: readonly string[]): string[] {
  return secrets.filter((s) => {
    let at = text.indexOf(s);
    while (at >= 0) {
      const before = text[at - 1] ?? '';
      const after = text[at + s.length] ?? '';
      if (!/\d/.test(before) && !/\d/.test(after)) return true;
      at = text.indexOf(s, at + 1);
    }
    return false;
  });
}
