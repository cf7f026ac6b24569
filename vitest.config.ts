import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Sized for CI's two cores. A test file spends most of its time waiting (its sandbox answers
 * over real HTTP, child `ohs` processes start and sync, SQLite commits), so one worker per core
 * leaves the cores idle half the time; one more worker than cores keeps both busy without
 * queueing so much CPU work that a loaded machine trips the timeouts. OHS_TEST_WORKERS overrides.
 */
const workers = Number(process.env.OHS_TEST_WORKERS) || availableParallelism() + 1;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Timeouts catch hangs, never slowness: a machine shared by many slows every test several
    // times over, so they are generous (a file's own timing lives in its test, in seconds).
    testTimeout: 180_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    // Forks, not threads: native SQLite drivers, process.env per file (OHS_SQLITE_DRIVER) and
    // child processes are per-process state; each file gets its own sandbox on port 0.
    pool: 'forks',
    maxWorkers: workers,
    // In CI a failure prints once with its stack; no retries: a flaky test is a defect to fix.
    retry: 0,
  },
});
