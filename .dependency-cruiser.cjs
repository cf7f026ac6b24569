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
  reports: '^src/reports/',
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
 * The report folders of src/reports/ depend one way: a report built on others (base → built-on)
 * imports their folders and nothing else of another report; a base report imports no other report's
 * folder. A folder not named here imports no other report's folder. What two reports share lives
 * in the base one's folder (compliance's plan of the year is in compliance/, catch-up reads it).
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
const reportRules = [
  ...Object.entries(builtOn).map(([name, bases]) => ({
    name: `report-${name}`,
    comment: `src/reports/${name}/ imports ${bases.length === 0 ? 'no other report folder' : `only the report folders ${bases.join(', ')}`} (builtOn in .dependency-cruiser.cjs)`,
    severity: 'error',
    from: { path: folder(name) },
    to: { path: '^src/reports/[^/]+/', pathNot: [folder(name), folder('core'), ...bases.map(folder)] },
  })),
  {
    name: 'report-undeclared',
    comment: 'a report folder not in builtOn (.dependency-cruiser.cjs) imports no other report folder',
    severity: 'error',
    from: { path: '^src/reports/([^/]+)/', pathNot: Object.keys(builtOn).map(folder) },
    to: { path: '^src/reports/[^/]+/', pathNot: ['^src/reports/$1/', folder('core')] },
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
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
