import { lazyRequire } from './lazy-require.js';

/**
 * undici, loaded by the first call: commands that never speak to the service (plan, report,
 * status) do not pay its start-up. The client's transport and the service check read it here.
 */
export const undici = lazyRequire<typeof import('undici')>('undici');
