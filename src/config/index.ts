export { type ConfigFlags, loadConfig, localConfigPath, resolveToken } from './load.js';
export { type ApiConfig, type Config, configSchema, logLevels } from './schema.js';
