export {
  type ConfigFlags,
  defaultConfig,
  loadConfig,
  localConfigPath,
  resolveToken,
  tokenFileWarning,
} from './load.js';
export {
  type ApiConfig,
  type Config,
  configSchema,
  type InputConfig,
  logLevels,
  type ServiceFindings,
  type SyncConfig,
  type WritebackConfig,
} from './schema.js';
