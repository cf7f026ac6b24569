import { availableParallelism, loadavg } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/helpers/longest-first.js';

/**
 * One forked worker per core, and one more when the machine is idle at the start (load average
 * under half the cores). Most files spend much of their time waiting (the sandbox over real HTTP,
 * child `ohs` processes, rate limits, PostgreSQL), so on an idle 2-core machine a third worker
 * fills those waits. On a loaded machine more workers than cores make every test slower (and
 * files that time their own child processes trip), hence the load check. OHS_TEST_WORKERS
 * overrides.
 */
const cores = availableParallelism();
const idle = (loadavg()[0] ?? cores) < cores / 2;
const workers = Number(process.env.OHS_TEST_WORKERS) || (idle ? cores + 1 : cores);

/**
 * Files that change something process-wide get a fresh worker process of their own: the ones that
 * set process.env (OHS_SQLITE_DRIVER and the like) or the umask, and the ones that measure rates
 * (test/api/rate*.test.ts), which a worker's leftovers from an earlier file must not slow. Every
 * other file runs in a worker that keeps its loaded modules and runs files one after another: a
 * fresh process per file cost about 0.7 s of CPU (Node's start, vitest's, importing src/ again) for
 * nothing, 15 files measured (27.4 s of CPU isolated against 17.8 s sharing). Child `ohs`
 * processes, sandboxes and mirrors are per test, closed by the file that made them.
 */
const ownProcess = [
  'test/api/rate*.test.ts',
  'test/sync/failure-paths.test.ts',
  'test/mirror/drivers.test.ts',
  'test/hostile/born-safe.test.ts',
];

/** What both projects share. */
const common = {
  // Opt-in figures per test file (OHS_TEST_TIMING=file.ndjson): see test/helpers/timing-setup.ts.
  setupFiles: ['test/helpers/timing-setup.ts'],
  // Timeouts catch hangs, never slowness: a machine shared by many slows every test several
  // times over (the write-back examples test took over 120 s under a load average
  // of 15), so they are generous.
  testTimeout: 300_000,
  hookTimeout: 300_000,
  teardownTimeout: 30_000,
  // Forks, not threads: native SQLite drivers, process.env per file (OHS_SQLITE_DRIVER) and
  // child processes are per-process state; each file gets its own sandbox on port 0.
  pool: 'forks' as const,
  // In CI a failure prints once with its stack; no retries: a flaky test is a defect to fix.
  retry: 0,
  // The mirror refuses a nested write in every path the tests run (src/mirror/write-context.ts:
  // an assertion, off outside the tests for its cost); CLI children inherit it.
  // CLI children log NDJSON (config logFormat `json`), which tests read back line by line; the
  // terminal's text format is tested where it is set explicitly.
  env: { OHS_CHECK_WRITES: '1', OHS_LOG_FORMAT: 'json' },
};

export default defineConfig({
  test: {
    // The run's one PostgreSQL server (unless OHS_TEST_ENGINES=sqlite): test/helpers/engines.ts;
    // then the run's synced mirror of the shared sandbox, copied by the files that read it
    // (test/helpers/synced-global-setup.ts). Here, not in the projects: once per run, inherited by both.
    globalSetup: ['test/helpers/pg-global-setup.ts', 'test/helpers/synced-global-setup.ts'],
    maxWorkers: workers,
    // Longest files first (test/file-times.json), so that both workers finish together.
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: {
          ...common,
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: ownProcess,
          isolate: false,
        },
      },
      { test: { ...common, name: 'isolated', include: ownProcess } },
    ],
  },
});
