import type PinoPretty from 'pino-pretty';
import { lazyRequire } from './lazy-require.js';

/** pino-pretty, loaded when a terminal is there to read it: NDJSON logs (cron, tests) never pay its start-up. */
export const pinoPretty = lazyRequire<typeof PinoPretty>('pino-pretty');
