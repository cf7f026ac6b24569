import { openSqliteMirror } from './sqlite/open.js';
import { type Mirror, type MirrorEngine, MirrorEngineUnavailableError, type MirrorOptions } from './store.js';

/** The engine a mirror target names: a postgres:// (or postgresql://) URL, else a SQLite file path. */
export function engineOf(target: string): MirrorEngine {
  return /^postgres(ql)?:\/\//i.test(target) ? 'postgres' : 'sqlite';
}

/** A connection string without its password (for messages and `Mirror.location`). */
export function redactTarget(target: string): string {
  if (engineOf(target) !== 'postgres') return target;
  try {
    const url = new URL(target);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return target.replace(/:\/\/([^:@/]*):[^@/]*@/, '://$1:***@');
  }
}

/**
 * Opens the mirror a target names, on its engine: a file path opens (or creates) a SQLite
 * mirror (src/mirror/sqlite/open.ts); a postgres:// URL a PostgreSQL one.
 */
export async function openMirror(target: string, options: MirrorOptions = {}): Promise<Mirror> {
  if (engineOf(target) === 'postgres') {
    throw new MirrorEngineUnavailableError(
      `${redactTarget(target)}: this build has no PostgreSQL mirror engine yet; use a SQLite file for --db`,
    );
  }
  return openSqliteMirror(target, options);
}
