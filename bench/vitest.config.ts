import { defineConfig } from 'vitest/config';

// The bench package's own tests: the suite's shape, its report writer, the processes it measures.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
