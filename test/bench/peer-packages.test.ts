import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importedPackages, missingPackages, packageOf } from '../../bench/support/peer-packages.js';
import { missingDependency } from '../../lib/optional-module.js';

function moduleTree(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-peers-'));
  fs.mkdirSync(path.join(dir, 'support'));
  fs.writeFileSync(path.join(dir, 'peer-bench.js'), "import fs from 'node:fs';\nimport { a } from './support/helper.js';\nimport { z } from 'zod';\nexport function run() {}\n");
  fs.writeFileSync(path.join(dir, 'support/helper.js'), "import { x } from 'minicode-test-absent/sub/path';\nexport const a = await import('@minicode-test/absent-scoped');\n");
  // An argument list with a `--from` flag in it is not an import.
  fs.writeFileSync(path.join(dir, 'plain-bench.js'), "import os from 'os';\nexport function run() { return ['ingest', '--from', 'codex']; }\n");
  return dir;
}

describe('the packages a benchmark needs', () => {
  it('are read from its imports and those of the local modules it imports', () => {
    const dir = moduleTree();
    expect([...importedPackages(path.join(dir, 'peer-bench.js'))].sort()).toEqual(['@minicode-test/absent-scoped', 'minicode-test-absent', 'zod']);
    expect(packageOf('openai/core/streaming')).toBe('openai');
  });

  it('name only the ones not installed, per benchmark', () => {
    const dir = moduleTree();
    const missing = missingPackages([path.join(dir, 'peer-bench.js'), path.join(dir, 'plain-bench.js')]);
    expect([...missing.keys()]).toEqual([path.join(dir, 'peer-bench.js')]);
    expect(missing.get(path.join(dir, 'peer-bench.js'))).toEqual(expect.arrayContaining(['@minicode-test/absent-scoped', 'minicode-test-absent']));
  });

  it('turn into one coded error with the pinned install command and the benchmarks that can still run', () => {
    const error = missingDependency(['eventsource-parser', 'openai', 'strip-ansi'], '`minicode bench` (scrub, sse-framing)', { orElse: 'run the others alone: minicode bench --only store' });
    expect(error.code).toBe('MINICODE_E_MISSING_DEPENDENCY');
    expect(error.exitCode).toBe(1);
    expect(error.action).toMatch(/npm install --no-save eventsource-parser@\d+\.\d+\.\d+ openai@\d+\.\d+\.\d+ strip-ansi@\d+\.\d+\.\d+`, or run the others alone/);
  });
});
