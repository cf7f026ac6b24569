import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * The folder of ohs-mirror's package.json, found by walking up from this file, so the same code
 * works from `src/` (tests) and from `dist/src/` (the built CLI).
 */
export function packageRoot(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'ohs-mirror') {
        cached = dir;
        return dir;
      }
    } catch {
      // No package.json here: keep walking up.
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the ohs-mirror package root');
    dir = parent;
  }
}

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}
