import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';

/** Repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The compiled CLI entry point (`npm test` builds before running vitest). */
export const CLI = path.join(ROOT, 'dist/cli/main.js');
/** `../shared/fixtures` beside the checkout; absent on a bare clone. */
export const FIXTURES = path.resolve(ROOT, '../shared/fixtures');
/** True when the shared fixtures are present. */
export const HAVE_FIXTURES = fs.existsSync(FIXTURES);

/** Say once why fixture-based tests are skipped. */
export function fixtureSkipNote(): void {
  if (!HAVE_FIXTURES) console.warn(`skipping fixture tests: ${FIXTURES} is absent (bare clone)`);
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run the compiled CLI as a real subprocess. */
export function runCli(
  args: string[],
  options: {
    input?: string | Buffer;
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    timeoutMs?: number;
    nodeArgs?: string[];
    /** Run as this user (a test run by root that needs an ordinary user). */
    user?: { uid: number; gid: number };
  } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.user ?? {}),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    child.stdin.end(options.input ?? '');
  });
}
