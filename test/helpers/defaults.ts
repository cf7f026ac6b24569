import { defaultConfig } from '../../src/config/index.js';

/**
 * config/default.json parsed by the schema: the resolved options tests hand to modules they
 * build directly (client paging, sync, plan, apply, CSV), so no test re-types a default.
 */
export const defaults = defaultConfig();
