import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Folders another user can walk through (0755, whatever the umask) under one temporary root:
 * for tests that run commands as a `useradd -r` user (test/helpers/system-user.ts).
 */
export function openDirs(prefix: string): () => string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(root, 0o755);
  let n = 0;
  return () => {
    const d = join(root, `d${++n}`);
    mkdirSync(d, { mode: 0o755 });
    chmodSync(d, 0o755);
    return d;
  };
}
