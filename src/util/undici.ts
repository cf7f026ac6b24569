import type { Client, Pool } from 'undici';
import { lazyRequire } from './lazy-require.js';

/**
 * undici's connection pool and one-connection client, each loaded by its first use: commands that
 * never speak to the service (plan, report, status) do not pay their start-up. Each is required by
 * its own path, not through undici's index, which loads all of undici (fetch, WebSocket, the cache,
 * the mocks): 0.04 s of CPU against 0.10 s on Node 20, in every process that syncs or applies.
 * They are the classes the index exports. The client's transport and the service check read them.
 */
export const undiciPool = lazyRequire<typeof Pool>('undici/lib/dispatcher/pool.js');
export const undiciClient = lazyRequire<typeof Client>('undici/lib/dispatcher/client.js');
