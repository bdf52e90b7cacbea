/**
 * Backpressure end to end, with real subprocesses: a reader that stops reading a command's
 * stdout must stop the command reading its input (instead of the command buffering its whole
 * output), and its peak RSS must stay within 64 MB of a run whose reader keeps up.
 *
 * "Stopped reading its input" is observed, not assumed: the offset of the child's input file
 * (/proc/PID/fdinfo), or the bytes a loopback provider could send it, stays unchanged over
 * consecutive polls while the reader is paused, far below the input's size. Linux only
 * (skipped elsewhere, saying so).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeCodexStream } from '../corpus/codex-stream.js';
import { CLI, ROOT } from '../helpers/cli.js';

const HOOK = path.join(ROOT, 'test/helpers/report-usage.mjs');
const LINUX = process.platform === 'linux' && fs.existsSync('/proc/self/fdinfo');
const dirs: string[] = [];
const tmp = (prefix: string): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * How far the process has read `file` (the offset of the fd open on it), its size once the
 * file is closed, or undefined once the process is gone.
 */
function readOffset(pid: number, file: string): number | undefined {
  let fds: string[];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return undefined;
  }
  for (const fd of fds) {
    try {
      if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) !== file) continue;
      return Number(/pos:\s*(\d+)/.exec(fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))?.[1]);
    } catch {
      // The fd closed between the listing and the read.
    }
  }
  return fs.statSync(file).size;
}

/** User + system CPU clock ticks of the process, or undefined once it is gone. */
function cpuTicks(pid: number): number | undefined {
  try {
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 50));

interface Run {
  code: number | null;
  maxRssMb: number;
  /** Lines written to stdout (byte counts differ: the summary carries durations). */
  outLines: number;
  /** Bytes the child had read when it was seen stalled behind the paused reader. */
  stalledAt?: number;
}

/** Run the CLI; with `pause`, stop reading stdout after its first chunk until the child stalls. */
async function run(
  args: string[],
  pause: boolean,
  progress: (pid: number) => number | undefined,
  env?: NodeJS.ProcessEnv,
): Promise<Run> {
  const child = spawn(process.execPath, ['--import', HOOK, CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (s: string) => (stderr += s));
  let outLines = 0;
  const count = (chunk: Buffer): void => {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) outLines++;
  };
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  let stalledAt: number | undefined;
  if (pause) {
    const first = await new Promise<Buffer>((resolve) => child.stdout.once('data', resolve));
    count(first);
    child.stdout.pause();
    // Wait for the condition "the child has stopped reading": no progress over 20 polls.
    let last = -1;
    let still = 0;
    while (still < 20) {
      await tick();
      const now = progress(child.pid as number);
      if (now === undefined) break;
      still = now === last ? still + 1 : 0;
      last = now;
    }
    stalledAt = last;
  }
  child.stdout.on('data', count);
  child.stdout.resume();
  const code = await exited;
  const usage = /minicode-usage (\{.*\})/.exec(stderr);
  if (!usage) throw new Error(`no usage line from the child (exit ${code}): ${stderr.slice(-500)}`);
  const { maxRssKb } = JSON.parse(usage[1] as string) as { maxRssKb: number };
  return { code, maxRssMb: maxRssKb / 1024, outLines, ...(stalledAt !== undefined ? { stalledAt } : {}) };
}

describe.skipIf(!LINUX)('a paused stdout reader', () => {
  const dir = tmp('minicode-backpressure-');
  const input = path.join(dir, 'codex.jsonl');
  let inputBytes = 0;

  it('stops ingest reading its input, and its peak RSS stays within 64 MB of a fast reader', async () => {
    inputBytes = await writeCodexStream(input, { records: 40_000, seed: 7 });
    const offset = (pid: number): number | undefined => readOffset(pid, input);
    const fast = await run(
      ['ingest', '--from', 'codex', input, '--json', '--store', path.join(dir, 'store'), '--session', 'ses_bp_fast'],
      false,
      offset,
    );
    const slow = await run(
      ['ingest', '--from', 'codex', input, '--json', '--store', path.join(dir, 'store'), '--session', 'ses_bp_slow'],
      true,
      offset,
    );
    expect(fast.code).toBe(0);
    expect(slow.code).toBe(0);
    expect(slow.outLines).toBe(fast.outLines);
    // The child stalled with most of its input unread: the reader's pause reached the file read.
    expect(slow.stalledAt).toBeLessThan(inputBytes / 2);
    expect(slow.maxRssMb).toBeLessThan(fast.maxRssMb + 64);
    console.info(
      `ingest peak RSS: fast reader ${fast.maxRssMb.toFixed(0)} MB, paused reader ${slow.maxRssMb.toFixed(0)} MB (stalled after ${slow.stalledAt} of ${inputBytes} input bytes)`,
    );
  }, 300_000);

  it('stops replay reading the store, and its peak RSS stays within 64 MB of a fast reader', async () => {
    const store = path.join(dir, 'store');
    // The store is memory-mapped (no file offset to watch): progress is the CPU time the child uses.
    const fast = await run(['replay', 'ses_bp_fast', '--json', '--store', store], false, cpuTicks);
    const slow = await run(['replay', 'ses_bp_fast', '--json', '--store', store], true, cpuTicks);
    expect(fast.code).toBe(0);
    expect(slow.code).toBe(0);
    expect(slow.outLines).toBe(fast.outLines);
    expect(slow.maxRssMb).toBeLessThan(fast.maxRssMb + 64);
    console.info(
      `replay peak RSS: fast reader ${fast.maxRssMb.toFixed(0)} MB, paused reader ${slow.maxRssMb.toFixed(0)} MB`,
    );
  }, 300_000);
});

/** An OpenAI-compatible loopback server answering every request with a long streamed text, writing only as fast as it is read. */
async function longAnswerServer(
  deltas: number,
): Promise<{ url: string; sent: () => number; close: () => Promise<void> }> {
  let sent = 0;
  const chunk = (content: string): string =>
    `data: ${JSON.stringify({ id: 'chatcmpl-bp', object: 'chat.completion.chunk', created: 1, model: 'local-model', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
  const text = 'The pipeline keeps pace with its slowest reader, line after line. '.repeat(8);
  const server = http.createServer(async (req, res) => {
    for await (const _ of req) void _;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < deltas; i++) {
      const frame = chunk(text);
      sent += frame.length;
      if (!res.write(frame)) await new Promise<void>((resolve) => res.once('drain', () => resolve()));
    }
    res.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-bp', object: 'chat.completion.chunk', created: 1, model: 'local-model', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    sent: () => sent,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!LINUX)('a paused reader of exec --json', () => {
  it('stops the provider body being read, and the peak RSS stays within 64 MB of a fast reader', async () => {
    const deltas = 40_000;
    const server = await longAnswerServer(deltas);
    const home = tmp('minicode-bp-home-');
    const cwd = tmp('minicode-bp-cwd-');
    const env = {
      MINICODE_HOME: home,
      OPENAI_API_KEY: 'sk-test-not-a-real-key',
      MINICODE_PROVIDER: undefined,
      MINICODE_CASSETTE: undefined,
    };
    const args = [
      'exec',
      'write a long answer',
      '--json',
      '--cwd',
      cwd,
      '--provider',
      'openai-chat',
      '--base-url',
      server.url,
      '--model',
      'local-model',
    ];
    try {
      const fast = await run(args, false, () => server.sent(), env);
      const total = server.sent();
      const before = server.sent();
      const slow = await run(args, true, () => server.sent() - before, env);
      expect(fast.code).toBe(0);
      expect(slow.code).toBe(0);
      expect(slow.outLines).toBe(fast.outLines);
      // The server could not send more than a fraction of the answer while the reader paused.
      expect(slow.stalledAt).toBeLessThan(total / 2);
      expect(slow.maxRssMb).toBeLessThan(fast.maxRssMb + 64);
      console.info(
        `exec --json peak RSS: fast reader ${fast.maxRssMb.toFixed(0)} MB, paused reader ${slow.maxRssMb.toFixed(0)} MB (server stalled after ${slow.stalledAt} of ${total} bytes)`,
      );
    } finally {
      await server.close();
    }
  }, 300_000);
});

describe.skipIf(!LINUX)('a paused reader of batch --json', () => {
  it('finishes every run with every record line, and the peak RSS stays within 64 MB of a fast reader', async () => {
    // Each line is one short run against a loopback provider; the JSON lines (a record per
    // run, progress each second, the summary) outgrow the pipe's buffer while the reader is paused.
    let requests = 0;
    const frame = (body: object): string =>
      `data: ${JSON.stringify({ id: 'chatcmpl-bp', object: 'chat.completion.chunk', created: 1, model: 'local-model', ...body })}\n\n`;
    const answer = [
      frame({
        choices: [
          {
            index: 0,
            delta: { role: 'assistant', content: 'Done: the batch keeps its records.' },
            finish_reason: null,
          },
        ],
      }),
      frame({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      'data: [DONE]\n\n',
    ].join('');
    const server = http.createServer(async (req, res) => {
      for await (const _ of req) void _;
      requests++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(answer);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const lines = 800;
    const dir = tmp('minicode-bp-batch-');
    const input = path.join(dir, 'in.jsonl');
    fs.writeFileSync(
      input,
      Array.from({ length: lines }, (_, i) => JSON.stringify({ id: `run-${i}`, prompt: `answer ${i}` })).join('\n') +
        '\n',
    );
    const env = {
      MINICODE_HOME: tmp('minicode-bp-home-'),
      OPENAI_API_KEY: 'sk-test-not-a-real-key',
      MINICODE_PROVIDER: undefined,
      MINICODE_CASSETTE: undefined,
    };
    const args = (out: string): string[] => [
      'batch',
      input,
      '--json',
      '--out',
      path.join(dir, out),
      '--concurrency',
      '16',
      '--cwd',
      tmp('minicode-bp-cwd-'),
      '--provider',
      'openai-chat',
      '--base-url',
      url,
      '--model',
      'local-model',
    ];
    try {
      const fast = await run(args('fast'), false, () => requests, env);
      // Paused until the batch stops making requests (it has run every line), then read: the
      // worst case, every line written while nobody reads.
      const before = requests;
      const slow = await run(args('slow'), true, () => requests - before, env);
      expect(fast.code).toBe(0);
      expect(slow.code).toBe(0);
      const records = (out: string): number =>
        fs
          .readFileSync(path.join(dir, out, 'results.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean).length;
      expect(records('fast')).toBe(lines);
      expect(records('slow')).toBe(lines);
      // A record line per run and the summary on both (progress lines depend on the run's length).
      expect(Math.min(fast.outLines, slow.outLines)).toBeGreaterThanOrEqual(lines + 1);
      expect(slow.maxRssMb).toBeLessThan(fast.maxRssMb + 64);
      console.info(
        `batch --json peak RSS: fast reader ${fast.maxRssMb.toFixed(0)} MB, paused reader ${slow.maxRssMb.toFixed(0)} MB (${lines} runs, ${slow.outLines} lines)`,
      );
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 600_000);
});

if (!LINUX) console.warn('skipped: the backpressure test reads /proc/PID/io (Linux only)');
