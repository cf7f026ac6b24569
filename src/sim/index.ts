export {
  faultKinds,
  type SimOptions,
  type SimOptionsInput,
  simOptionsSchema,
  type WriteOperation,
  writeOperations,
} from './options.js';
export { operators } from './query.js';
export { type RunningSim, type SimStats, type StartSimOptions, startSim } from './server.js';
export type { SimRecord, SimStatus } from './store.js';
