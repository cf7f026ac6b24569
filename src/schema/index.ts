export * from './fields.js';
export * from './operations.js';
export * as requests from './requests.js';
export * as records from './resources.js';
