export { type ConfigFlags, loadConfig, localConfigPath, resolveToken, tokenFileWarning } from './load.js';
export { type ApiConfig, type Config, configSchema, logLevels, type ServiceFindings } from './schema.js';
