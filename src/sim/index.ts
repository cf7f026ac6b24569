export { type SimOptions, type SimOptionsInput, simOptionsSchema } from './options.js';
export { operators } from './query.js';
export { type RunningSim, type StartSimOptions, startSim } from './server.js';
export type { SimRecord } from './store.js';
