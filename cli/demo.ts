/**
 * `npm run demo`: the main job on the embedded default, with no API key and no network.
 * Copies the bundled sample project to a scratch directory, runs `minicode exec` on it
 * against the bundled demo cassette (served over loopback HTTP by the replay provider, so the
 * bytes go through the real HTTP and decoding path), shows the TTY rendering, the same run's
 * `--json` output, and the stored session replayed from the LMDB store.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findSandboxBackend, installHint } from '../lib/sandbox/backend.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli/main.js');
const cassette = path.join(root, 'cassettes/demo');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-demo-'));
const home = path.join(scratch, 'home');
const env = { ...process.env, MINICODE_HOME: home };
// The demo runs everywhere: in the sandbox where a backend works, else explicitly without it.
const sandbox = findSandboxBackend() ? [] : ['--sandbox', 'off'];
if (sandbox.length > 0)
  process.stdout.write(`demo: no sandbox backend works here, so the demo runs with --sandbox off (${installHint()})\n`);

function heading(text: string): void {
  process.stdout.write(`\n\x1b[1m=== ${text}\x1b[0m\n\n`);
}

function fresh(name: string): string {
  const dir = path.join(scratch, name);
  fs.cpSync(path.join(root, 'demo/sample-project'), dir, { recursive: true });
  return dir;
}

function minicode(args: string[], options: { capture?: boolean } = {}): string {
  const result = spawnSync(process.execPath, [cli, ...args], {
    env,
    stdio: options.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    process.stderr.write(`demo: minicode ${args[0]} exited ${result.status}\n`);
    process.exit(result.status ?? 1);
  }
  return result.stdout ?? '';
}

const project = fresh('project');
heading(`1. minicode exec (TTY view) in a scratch copy of the sample project: ${project}`);
process.stdout.write('$ node test.js   # before: the test fails\n');
spawnSync(process.execPath, ['test.js'], { cwd: project, stdio: 'inherit' });
process.stdout.write(
  `\n$ minicode exec "Fix the failing test in this project" --provider replay --cassette cassettes/demo\n`,
);
minicode([
  'exec',
  'Fix the failing test in this project',
  '--provider',
  'replay',
  '--cassette',
  cassette,
  '--cwd',
  project,
  ...sandbox,
]);
process.stdout.write('\n$ node test.js   # after\n');
spawnSync(process.execPath, ['test.js'], { cwd: project, stdio: 'inherit' });

heading('2. the same job with --json (what CI and programs read; first and last lines shown)');
const jsonProject = fresh('project-json');
const lines = minicode(
  [
    'exec',
    'Fix the failing test in this project',
    '--json',
    '--provider',
    'replay',
    '--cassette',
    cassette,
    '--cwd',
    jsonProject,
    ...sandbox,
  ],
  { capture: true },
)
  .trim()
  .split('\n');
for (const line of [...lines.slice(0, 4), `… ${lines.length - 7} more lines …`, ...lines.slice(-3)])
  process.stdout.write(`${line.length > 240 ? line.slice(0, 240) + '…' : line}\n`);
const summary = JSON.parse(lines[lines.length - 1] ?? '{}') as { ok?: boolean; sessionId?: string };

heading('3. the stored sessions, and the last one rebuilt from LMDB');
minicode(['sessions']);
if (summary.sessionId) {
  process.stdout.write(`\n$ minicode replay ${summary.sessionId} --linear\n`);
  minicode(['replay', summary.sessionId, '--linear']);
}
process.stdout.write(`\nDemo files are in ${scratch} (store: ${home}).\n`);
