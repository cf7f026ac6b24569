import { openPostgresMirror } from './postgres/open.js';
import { isPostgresUrl, redactUrl } from './postgres/url.js';
import { openSqliteMirror } from './sqlite/open.js';
import type { Mirror, MirrorEngine, MirrorOptions } from './store.js';

/** The engine a mirror target names: a postgres:// (or postgresql://) URL, else a SQLite file path. */
export function engineOf(target: string): MirrorEngine {
  return isPostgresUrl(target) ? 'postgres' : 'sqlite';
}

/** A connection string without its password (for messages and `Mirror.location`). */
export function redactTarget(target: string): string {
  return engineOf(target) === 'postgres' ? redactUrl(target) : target;
}

/**
 * Opens the mirror a target names, on its engine: a file path opens (or creates) a SQLite
 * mirror (src/mirror/sqlite/open.ts); a postgres:// URL a PostgreSQL one.
 */
export async function openMirror(target: string, options: MirrorOptions = {}): Promise<Mirror> {
  if (engineOf(target) === 'postgres') return openPostgresMirror(target, options);
  return openSqliteMirror(target, options);
}
