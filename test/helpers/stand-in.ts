/**
 * Stand-in native agent executables and a committed scratch repository, for the tests of
 * `run --agent` (handoff, traces): one executable per agent, so the agents of a workflow replay
 * different streams.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './cli.js';

/** The shared stand-in (test/helpers/stand-in-agent.mjs). */
export const STAND_IN = path.join(ROOT, 'test/helpers/stand-in-agent.mjs');
/** Our hand-made native agent streams. */
export const NATIVE_STREAMS = path.join(ROOT, 'test/streams/native');

/**
 * Write `dir/name`: a shell wrapper exporting that agent's STAND_IN_* settings, then the shared
 * stand-in. With `traceFile`, the wrapper first appends the TRACEPARENT it was given to it.
 */
export function standIn(
  dir: string,
  name: string,
  settings: Record<string, string>,
  options: { traceFile?: string } = {},
): string {
  const file = path.join(dir, name);
  const exports = Object.entries(settings).map(([k, v]) => `export ${k}='${v.replace(/'/g, `'\\''`)}'`);
  const trace = options.traceFile ? [`printf '%s\\n' "$TRACEPARENT" >> '${options.traceFile}'`] : [];
  fs.writeFileSync(
    file,
    ['#!/bin/sh', ...exports, ...trace, `exec '${process.execPath}' '${STAND_IN}' "$@"`, ''].join('\n'),
    { mode: 0o755 },
  );
  return file;
}

/** A git repository with one commit (README.md) in a new temporary folder. */
export function committedRepo(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const git = (...args: string[]) => spawnSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  fs.writeFileSync(path.join(dir, 'README.md'), '# app\n');
  git('add', '.');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'init');
  return dir;
}
