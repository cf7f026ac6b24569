import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: the suite must pass on a loaded machine (two cores shared with other work), where
    // a CLI sync that takes 10 s idle may take a minute. Timeouts only end a hung test.
    testTimeout: 180_000,
    hookTimeout: 120_000,
    // Two cores: files run in parallel forks, each with its own sandbox on port 0.
    pool: 'forks',
  },
});
