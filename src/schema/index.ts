export * from './fields.js';
export * from './operations.js';
export * from './query.js';
export * as requests from './requests.js';
export * as records from './resources.js';
