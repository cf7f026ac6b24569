import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which write transaction the running code is inside, so that a use of the mirror inside its own
 * write is refused (NestedWriteError) instead of waiting for that write forever (SQLite's one
 * connection) or escaping its transaction (PostgreSQL's pool).
 *
 * It rides AsyncLocalStorage, which on Node 20 turns on promise hooks for the whole process: a
 * tenth of a sync's CPU (bench/README.md). So it is an assertion, like a debug build's:
 * on when `OHS_CHECK_WRITES=1` (the test suite sets it, so every path the tests run is checked,
 * the CLI's child processes included), off otherwise, where the suite has ruled nesting out.
 */
export class WriteContext<T> {
  private readonly store = process.env.OHS_CHECK_WRITES === '1' ? new AsyncLocalStorage<T>() : undefined;

  /** The write under way in this async context, when checked. */
  current(): T | undefined {
    return this.store?.getStore();
  }

  run<R>(write: T, fn: () => R): R {
    return this.store === undefined ? fn() : this.store.run(write, fn);
  }
}
