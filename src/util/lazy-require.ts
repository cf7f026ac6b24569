import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS dependency loaded by the first call, then kept: `require` gives what a default
 * import gives, synchronously, so a command that never needs the module (a terminal's log
 * format, the HTTP client, Excel) never pays its start-up.
 */
export function lazyRequire<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(name) as T;
    return loaded;
  };
}
