export {
  type ConfigFlags,
  defaultConfig,
  loadConfig,
  localConfigPath,
  resolveToken,
  tokenFileWarning,
} from './load.js';
export { type ApiConfig, type Config, configSchema, type SyncConfig } from './schema.js';
