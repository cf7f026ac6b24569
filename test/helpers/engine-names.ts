/**
 * The names of the mirror's engines under test (`OHS_TEST_ENGINES`) and what the global setup
 * hands to the workers. Apart from engines.ts (which imports vitest's test API) so that the
 * global setup, which runs in vitest's main process, can read them too.
 */
export type EngineName = 'sqlite' | 'postgres';

export const allEngines: readonly EngineName[] = ['sqlite', 'postgres'];

/** The engines `OHS_TEST_ENGINES` names (default: all), in the order of `allEngines`. */
export function enginesFromEnv(value: string | undefined): EngineName[] {
  if (value === undefined || value.trim() === '') return [...allEngines];
  const names = value.split(',').map((n) => n.trim().toLowerCase());
  for (const n of names) {
    if (!allEngines.includes(n as EngineName)) {
      throw new Error(`OHS_TEST_ENGINES: unknown engine '${n}' (known: ${allEngines.join(', ')})`);
    }
  }
  return allEngines.filter((e) => names.includes(e));
}

/** What the global setup hands to the workers: where the server will be, and its state files. */
export interface SharedPg {
  /** `postgres://ohs@127.0.0.1:PORT/postgres`: superuser, no password (trust on loopback). */
  url: string;
  /** Holds `ready` once the server accepts connections, or `failed` (the error) if it could not start. */
  stateDir: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's PostgreSQL server; null when PostgreSQL is not among the engines. */
    ohsPg: SharedPg | null;
  }
}
