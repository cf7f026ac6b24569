import { InvalidArgumentError } from 'commander';
import { didYouMean } from '../util/closest.js';

/** Option parsers for commander: a bad value becomes a usage error naming the option. */
export function intArg(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || n < min || n > max) {
      throw new InvalidArgumentError(
        `expected a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}.`,
      );
    }
    return n;
  };
}

export function numberArg(min: number, max = Number.POSITIVE_INFINITY) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
      throw new InvalidArgumentError(
        `expected a number from ${min}${Number.isFinite(max) ? ` to ${max}` : ''}.`,
      );
    }
    return n;
  };
}

export function listArg<const T extends string>(allowed: readonly T[]) {
  return (value: string): T[] => {
    const items = value.split(',').map((s) => s.trim());
    for (const item of items) {
      if (!(allowed as readonly string[]).includes(item)) {
        throw new InvalidArgumentError(
          `'${item}' is not one of ${allowed.join(', ')}${didYouMean(item, allowed)}.`,
        );
      }
    }
    return items as T[];
  };
}

/**
 * Help of every `--db` option: a password in a postgres:// URL on the command line is visible to
 * every user of the machine (`ps`), so the help points at OHS_DB and ~/.pgpass instead.
 */
export const DB_OPTION_HELP =
  'the mirror: a SQLite file or postgres://user@host/db (env OHS_DB); give a PostgreSQL password through OHS_DB or ~/.pgpass (PGPASSFILE), never in --db: the command line is visible to every user in ps';
