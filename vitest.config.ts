import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

// A test that sets no MINICODE_HOME still never writes into the real user data folder (the
// default session store, workspace checkpoints of exec/batch/run/acp runs).
const dataHome = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-test-data-'));

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: { XDG_DATA_HOME: dataHome },
    // No retry: a test that fails under load waits for time somewhere; fix its wait.
  },
});
