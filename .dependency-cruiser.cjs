/**
 * The layers of src/, checked by `npm test` (dependency-cruiser): each layer imports only the
 * layers it lists under `may`, and no module imports itself back through others (type-only
 * imports included). The same map is drawn in the README's Architecture section.
 */
const layers = {
  // Shared leaves, imported by every layer; they import nothing else of src/.
  leaves: '^src/(errors|dates|log|terminal|disk-full)\\.ts$|^src/(util|schema|config)/',
  api: '^src/api/',
  mirror: '^src/mirror/',
  sync: '^src/sync/',
  render: '^src/render/',
  // The registry, the core and the report folders: no file loose beside them.
  reports: '^src/reports/(index\\.ts$|[^/]+/)',
  input: '^src/input/',
  writeback: '^src/writeback/',
  policy: '^src/policy/',
  sim: '^src/sim/',
  app: '^src/app/',
  commands: '^src/commands/',
  cli: '^src/cli\\.ts$',
};

/** Which layers each layer may import, besides its own files. */
const may = {
  leaves: [],
  api: ['leaves'],
  mirror: ['leaves', 'api'],
  sync: ['leaves', 'api', 'mirror'],
  render: ['leaves'],
  reports: ['leaves', 'mirror', 'render'],
  input: ['leaves'],
  writeback: ['leaves', 'api', 'mirror', 'input'],
  policy: ['leaves', 'mirror', 'input'],
  sim: ['leaves', 'api'],
  app: ['leaves', 'api', 'mirror', 'sync', 'render', 'reports', 'input', 'writeback', 'policy', 'sim'],
  commands: [
    'leaves',
    'api',
    'mirror',
    'sync',
    'render',
    'reports',
    'input',
    'writeback',
    'policy',
    'sim',
    'app',
  ],
  cli: ['leaves', 'commands'],
};

const layerRules = Object.entries(layers).map(([name, path]) => ({
  name: `layer-${name}`,
  comment: `${path} imports only ${may[name].length === 0 ? 'its own files' : may[name].join(', ')} (see .dependency-cruiser.cjs)`,
  severity: 'error',
  from: { path },
  to: { path: '^src/', pathNot: [path, ...may[name].map((m) => layers[m])] },
}));

/**
 * The report layer, src/reports/: the core (core/: the runner, the run, the types, params and the
 * helpers every report shares), a folder per report, and the registry (index.ts), its one door.
 * The core imports no report folder. A folder imports the core and the folders it is built on
 * (builtOn, base → built-on), nothing else of src/reports/: not another folder, not the registry,
 * not a file loose beside the folders (there is none: one would be outside the layers). Outside
 * src/reports/ nothing imports a report folder: it goes through the registry (or the core). What a
 * base report and one built on it share lives in the base's folder (compliance's catch-up plan is
 * compliance/plan.ts, read by catch-up/). `lazyRequire` (`exoticRequireStrings` below) and a
 * literal `import()` are imports like the others here; a non-literal `import()` is refused by
 * Biome (`.biome/no-computed-import.grit`: dependency-cruiser cannot see where one leads).
 */
const builtOn = {
  compliance: [],
  'unpaid-invoices': [],
  'order-ageing': [],
  'catch-up': ['compliance'],
  'ar-rollforward': ['unpaid-invoices'],
  'accounts-at-risk': ['compliance', 'unpaid-invoices', 'order-ageing'],
  packet: ['compliance'],
  changes: ['compliance', 'catch-up', 'unpaid-invoices', 'order-ageing', 'ar-rollforward'],
};
const folder = (name) => `^src/reports/${name}/`;
const core = folder('core');
const reportRules = [
  {
    name: 'report-core',
    comment: 'src/reports/core/ imports no report folder, nor the registry (.dependency-cruiser.cjs)',
    severity: 'error',
    from: { path: core },
    to: { path: '^src/reports/', pathNot: core },
  },
  ...Object.entries(builtOn).map(([name, bases]) => ({
    name: `report-${name}`,
    comment: `src/reports/${name}/ imports of src/reports/ only the core${bases.length === 0 ? '' : ` and the folders ${bases.join(', ')}`} (builtOn in .dependency-cruiser.cjs)`,
    severity: 'error',
    from: { path: folder(name) },
    to: { path: '^src/reports/', pathNot: [folder(name), core, ...bases.map(folder)] },
  })),
  {
    name: 'report-undeclared',
    comment: 'a report folder not in builtOn (.dependency-cruiser.cjs) imports of src/reports/ only the core',
    severity: 'error',
    from: { path: '^src/reports/([^/]+)/', pathNot: [core, ...Object.keys(builtOn).map(folder)] },
    to: { path: '^src/reports/', pathNot: ['^src/reports/$1/', core] },
  },
  {
    name: 'report-through-registry',
    comment:
      'outside src/reports/, a report folder is reached only through the registry src/reports/index.ts',
    severity: 'error',
    from: { pathNot: '^src/reports/' },
    to: { path: '^src/reports/[^/]+/', pathNot: core },
  },
  {
    name: 'lazy-require-in-util',
    comment: 'lazyRequire is used in src/util/ alone (a module of its own there, as util/exceljs.ts)',
    severity: 'error',
    from: { pathNot: '^src/util/' },
    to: { path: '^src/util/lazy-require\\.ts$' },
  },
  {
    name: 'lazy-require-in-util-exotic',
    comment: 'a lazyRequire (exoticRequireStrings) outside src/util/',
    severity: 'error',
    from: { pathNot: '^src/util/' },
    to: { dependencyTypes: ['exotic-require'] },
  },
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    ...reportRules,
    {
      name: 'no-circular',
      comment: 'a module imports itself back through others (type-only imports count)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'outside-the-layers',
      comment: 'every file of src/ belongs to a layer of .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/', pathNot: Object.values(layers) },
      to: {},
    },
  ],
  options: {
    includeOnly: '^src/',
    // A lazyRequire('…') is an import too: the rules above see where it leads.
    exoticRequireStrings: ['lazyRequire'],
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
