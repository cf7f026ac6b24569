import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Sized for CI's two cores: one forked worker per core. Most files spend much of their time
 * waiting (the sandbox over real HTTP, child `ohs` processes, SQLite commits), but each also runs
 * its own sandbox and children, so more workers than cores made every test slower on a loaded
 * machine (measured: 7 of 46 files tripped their own child-process and rate timings at 3 workers
 * under a load average of 20). OHS_TEST_WORKERS overrides (e.g. 3 on an idle machine).
 */
const workers = Number(process.env.OHS_TEST_WORKERS) || availableParallelism();

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Opt-in figures per test file (OHS_TEST_TIMING=file.ndjson): see test/helpers/timing-setup.ts.
    setupFiles: ['test/helpers/timing-setup.ts'],
    // The run's one PostgreSQL server (unless OHS_TEST_ENGINES=sqlite): test/helpers/engines.ts.
    globalSetup: ['test/helpers/pg-global-setup.ts'],
    // Timeouts catch hangs, never slowness: a machine shared by many slows every test several
    // times over (the write-back examples test took over 120 s under a load average
    // of 15), so they are generous.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    teardownTimeout: 30_000,
    // Forks, not threads: native SQLite drivers, process.env per file (OHS_SQLITE_DRIVER) and
    // child processes are per-process state; each file gets its own sandbox on port 0.
    pool: 'forks',
    maxWorkers: workers,
    // In CI a failure prints once with its stack; no retries: a flaky test is a defect to fix.
    retry: 0,
  },
});
