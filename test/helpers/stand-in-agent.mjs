#!/usr/bin/env node
// A stand-in for a native agent CLI (codex, claude, gemini, opencode) in tests: it replays a
// recorded JSONL file on stdout with realistic timing, in uneven chunks that split lines, and
// can crash or fail on request. Configured by environment variables:
//   STAND_IN_REPLAY       file to replay (required)
//   STAND_IN_DELAY_MS     base delay between lines, default 3; the gap between recorded
//                         timestamps (ISO or epoch ms), scaled by 1/100 and capped at 40 ms, is added
//   STAND_IN_CRASH_AFTER  after N lines, SIGKILL itself (a crash mid-stream)
//   STAND_IN_EXIT_AFTER   after N lines, exit with STAND_IN_EXIT_CODE (default 1)
//   STAND_IN_EXIT_CODE    exit code at the end (default 0)
//   STAND_IN_STDERR       text written to stderr before exiting
//   STAND_IN_ARGS_FILE    write argv (JSON) here
//   STAND_IN_ENV_FILE     write the environment's variable names (JSON) here
//   STAND_IN_HANG         after replaying, wait until killed or orphaned (for abort tests)
//   STAND_IN_WRITE        `path=content`: write that file in the working directory first (the agent's work)
import fs from 'node:fs';

const env = process.env;
if (env.STAND_IN_ARGS_FILE) fs.writeFileSync(env.STAND_IN_ARGS_FILE, JSON.stringify(process.argv.slice(2)));
if (env.STAND_IN_WRITE) {
  const at = env.STAND_IN_WRITE.indexOf('=');
  fs.writeFileSync(env.STAND_IN_WRITE.slice(0, at), env.STAND_IN_WRITE.slice(at + 1));
}
if (env.STAND_IN_ENV_FILE) fs.writeFileSync(env.STAND_IN_ENV_FILE, JSON.stringify(Object.keys(env).sort()));

const lines = fs
  .readFileSync(env.STAND_IN_REPLAY ?? '/dev/null', 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '');
const baseDelay = Number(env.STAND_IN_DELAY_MS ?? 3);
const crashAfter = env.STAND_IN_CRASH_AFTER === undefined ? Infinity : Number(env.STAND_IN_CRASH_AFTER);
const exitAfter = env.STAND_IN_EXIT_AFTER === undefined ? Infinity : Number(env.STAND_IN_EXIT_AFTER);
const exitCode = Number(env.STAND_IN_EXIT_CODE ?? (env.STAND_IN_EXIT_AFTER === undefined ? 0 : 1));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const write = (text) =>
  new Promise((resolve) => (process.stdout.write(text) ? resolve() : process.stdout.once('drain', resolve)));

function timeOf(line) {
  const m = /"timestamp"\s*:\s*(?:"([^"]+)"|(\d{12,}))/.exec(line);
  if (!m) return undefined;
  const t = m[1] !== undefined ? Date.parse(m[1]) : Number(m[2]);
  return Number.isFinite(t) ? t : undefined;
}

let previous;
let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;

for (let i = 0; i < lines.length; i++) {
  if (i >= crashAfter) {
    process.kill(process.pid, 'SIGKILL');
    await sleep(1000);
  }
  if (i >= exitAfter) {
    if (env.STAND_IN_STDERR) process.stderr.write(env.STAND_IN_STDERR);
    process.exit(exitCode);
  }
  const line = `${lines[i]}\n`;
  const t = timeOf(line);
  const gap = t !== undefined && previous !== undefined ? Math.min(40, Math.max(0, (t - previous) / 100)) : 0;
  if (t !== undefined) previous = t;
  await sleep(baseDelay + gap);
  // Uneven writes: the reader must reassemble lines split across chunks.
  const cut = Math.floor(random() * line.length);
  await write(line.slice(0, cut));
  if (cut > 0 && random() < 0.5) await sleep(1);
  await write(line.slice(cut));
}
if (env.STAND_IN_STDERR) process.stderr.write(env.STAND_IN_STDERR);
if (env.STAND_IN_HANG) {
  // Hang until killed, or until the supervisor is gone (re-parented): a test that SIGKILLs
  // minicode must not leave this process behind.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(exitCode);
  }, 50);
} else {
  process.exitCode = exitCode;
}
