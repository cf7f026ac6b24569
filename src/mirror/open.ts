import { isPostgresUrl, redactUrl } from './postgres/url.js';
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
  // Each engine (and its driver) is loaded by the first open on it: a SQLite command never loads
  // pg, and the reverse (about 75 ms of CPU per CLI start).
  if (engineOf(target) === 'postgres') {
    const { openPostgresMirror } = await import('./postgres/open.js');
    return openPostgresMirror(target, options);
  }
  const { openSqliteMirror } = await import('./sqlite/open.js');
  return openSqliteMirror(target, options);
}
