import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { dropExpected } from '../debug.js';

/** Where the verify command came from (the summary reports the command, not the source). */
export type VerifySource = 'flag' | 'env' | 'config' | 'detected';

/** The command `--verify` will run after the run. */
export interface VerifyCommand {
  command: string;
  source: VerifySource;
}

/** npm's placeholder test script: running it always fails, so it is not a test command. */
const NPM_PLACEHOLDER = /no test specified/;

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    // No such file, or not JSON: nothing to detect a test command from.
    dropExpected(`reading ${file}`, error, 'ENOENT', 'ENOTDIR');
    return undefined;
  }
}

/** `npm`, `pnpm`, `yarn` or `bun`, from the lock file beside package.json. */
function packageRunner(cwd: string): { run: (script: string) => string } {
  const has = (f: string) => fs.existsSync(path.join(cwd, f));
  if (has('bun.lockb') || has('bun.lock')) return { run: (s) => `bun run ${s}` };
  if (has('pnpm-lock.yaml')) return { run: (s) => `pnpm run ${s}` };
  if (has('yarn.lock')) return { run: (s) => `yarn run ${s}` };
  return { run: (s) => (s === 'test' ? 'npm test' : `npm run ${s}`) };
}

/**
 * Guess the project's check command: a package.json `test` script (else `lint`), a Makefile
 * `test` target, then Cargo, Go and Python conventions. `undefined` when nothing fits.
 */
export function detectVerifyCommand(cwd: string): string | undefined {
  const pkg = readJson(path.join(cwd, 'package.json')) as { scripts?: Record<string, unknown> } | undefined;
  const scripts = pkg?.scripts ?? {};
  const runner = packageRunner(cwd);
  if (typeof scripts.test === 'string' && !NPM_PLACEHOLDER.test(scripts.test)) return runner.run('test');
  if (typeof scripts.lint === 'string') return runner.run('lint');
  for (const name of ['Makefile', 'makefile', 'GNUmakefile']) {
    try {
      if (/^test\s*:/m.test(fs.readFileSync(path.join(cwd, name), 'utf8'))) return 'make test';
    } catch (error) {
      dropExpected(`reading ${name}`, error, 'ENOENT', 'ENOTDIR', 'EISDIR');
    }
  }
  if (fs.existsSync(path.join(cwd, 'Cargo.toml'))) return 'cargo test';
  if (fs.existsSync(path.join(cwd, 'go.mod'))) return 'go test ./...';
  if (fs.existsSync(path.join(cwd, 'pyproject.toml')) || fs.existsSync(path.join(cwd, 'pytest.ini'))) return 'pytest';
  return undefined;
}

/**
 * The effective verify command for `--verify [CMD]`: the flag's CMD, else `MINICODE_VERIFY_CMD`,
 * else the config's `verify`, else detection. `flag` is `undefined` when `--verify` was not
 * given (then nothing runs and the summary has no `verify` key), `true` for a bare `--verify`.
 */
export function resolveVerifyCommand(options: {
  flag: string | boolean | undefined;
  env?: NodeJS.ProcessEnv;
  config?: Config;
  cwd: string;
}): VerifyCommand | undefined {
  if (options.flag === undefined || options.flag === false) return undefined;
  if (typeof options.flag === 'string' && options.flag.trim() !== '')
    return { command: options.flag.trim(), source: 'flag' };
  const fromEnv = (options.env ?? process.env).MINICODE_VERIFY_CMD;
  if (fromEnv && fromEnv.trim() !== '') return { command: fromEnv.trim(), source: 'env' };
  const fromConfig = options.config?.verify;
  if (fromConfig !== undefined)
    return { command: typeof fromConfig === 'string' ? fromConfig : fromConfig.command, source: 'config' };
  const detected = detectVerifyCommand(options.cwd);
  return detected === undefined ? undefined : { command: detected, source: 'detected' };
}
