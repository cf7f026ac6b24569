export type { ConfigEntry } from './explain.js';
export {
  type ConfigFlags,
  defaultConfig,
  loadConfig,
  loadConfigExplained,
  localConfigPath,
  readConfigFile,
  resolveToken,
  tokenFileWarning,
} from './load.js';
export { type ApiConfig, type Config, configSchema, type SyncConfig } from './schema.js';
