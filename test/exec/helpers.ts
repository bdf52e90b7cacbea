/**
 * Helpers of the `minicode exec` end-to-end tests: a scratch project, a clean environment (no
 * provider keys leak in from the machine running the tests), the real CLI as a subprocess,
 * and the JSONL contract check (docs/exec.md).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { CLI, ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { checkJsonlLines } from '../helpers/jsonl-contract.js';
import { startReplayServer } from '../../lib/replay/index.js';
// @ts-expect-error: plain ESM generator shared with cassettes/make.mjs (no types)
import { FORMATS, MODELS } from '../../cassettes/wire-formats.mjs';

export const CASSETTES = path.join(ROOT, 'cassettes');
export const TEST_CASSETTES = path.join(ROOT, 'test/cassettes');
const SAMPLE = path.join(ROOT, 'demo/sample-project');

/** A temp directory removed by the OS eventually (tests never write outside tmp). */
export function tempDir(prefix = 'minicode-exec-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A scratch copy of demo/sample-project (it has a README.md the two-turn cassettes read). */
export function scratchProject(): string {
  const dir = tempDir('minicode-project-');
  fs.cpSync(SAMPLE, dir, { recursive: true });
  return dir;
}

/** Variables that would pick a provider or a key from the machine running the tests. */
const MACHINE_VARS = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_GEMINI_BASE_URL',
  'OLLAMA_HOST',
  'OPENROUTER_API_KEY',
  'MINICODE_PROVIDER',
  'MINICODE_MODEL',
  'MINICODE_CASSETTE',
  'MINICODE_TIMEOUT_MS',
  'MINICODE_VERIFY_CMD',
  'MINICODE_STORE',
  'MINICODE_CONTEXT_WINDOW',
  'MINICODE_RETRY_BACKOFF_MS',
];

/** An environment with MINICODE_HOME in a fresh temp dir and no provider variables, plus `extra`. */
export function cleanEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { MINICODE_HOME: home };
  for (const name of MACHINE_VARS) env[name] = undefined; // spawn drops undefined entries
  return { ...env, ...extra };
}

/** One exec run: a fresh home, the CLI's result, its parsed JSONL records and the summary. */
export interface ExecRun extends CliResult {
  home: string;
  records: Record<string, unknown>[];
  summary: Record<string, unknown>;
}

/** Run `minicode exec PROMPT --json ...args` in `cwd` with a clean environment. */
export async function execJson(
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; home?: string; prompt?: string },
): Promise<ExecRun> {
  const home = options.home ?? tempDir('minicode-home-');
  const result = await runCli(
    ['exec', options.prompt ?? 'Read the README and tell me what it says', '--json', '--cwd', options.cwd, ...args],
    { env: cleanEnv(home, options.env) },
  );
  const records = checkContract(result.stdout);
  return { ...result, home, records, summary: records[records.length - 1]! };
}

/**
 * The `exec --json` contract: every line parses; envelopes validate against the published
 * schema and are machine-visible; text records are exactly `{type, delta}`; one summary,
 * last, versioned. Returns the parsed records.
 */
export function checkContract(stdout: string): Record<string, unknown>[] {
  expect(stdout.endsWith('\n'), 'stdout ends with a newline').toBe(true);
  const records = checkJsonlLines(stdout.slice(0, -1).split('\n'));
  // Through the whole pipeline, text deltas reach stdout scrubbed: no escape sequence survives.
  for (const record of records) if (record.type === 'text') expect(record.delta as string).not.toMatch(/\u001b/);
  return records;
}

/** Envelopes of one type. */
export function ofType(records: Record<string, unknown>[], type: string): Record<string, any>[] {
  return records.filter((r) => r.type === type) as Record<string, any>[];
}

/** The JSON output of `minicode replay SESSION --json` (same store). */
export async function replayJson(home: string, sessionId: string): Promise<Record<string, any>[]> {
  const r = await runCli(['replay', sessionId, '--json'], { env: cleanEnv(home) });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

/** A response body for one turn in a format's wire shape (the shipped generator); a call with `input` is a freeform one (openai-responses). */
export function turnBody(
  format: string,
  turn: {
    text?: string;
    calls?: ({ id: string; name: string; args: unknown } | { id: string; name: string; input: string })[];
  },
  n = 1,
): string {
  const spec = FORMATS[format as keyof typeof FORMATS] as { body(t: unknown, n: number, model: string): string };
  return spec.body(turn, n, (MODELS as Record<string, string>)[format]!);
}

/** A hand-made openai-chat cassette in OUT, one recorded exchange per turn. */
export function writeChatCassette(
  out: string,
  description: string,
  turns: { text?: string; calls?: { id: string; name: string; args: unknown }[] }[],
): string {
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(
    path.join(out, 'cassette.json'),
    JSON.stringify({
      schema: 'minicode.cassette.v1',
      format: 'openai-chat',
      model: 'gpt-4.1-mini',
      origin: 'hand-made',
      description,
    }),
  );
  turns.forEach((turn, i) => {
    const n = String(i + 1).padStart(3, '0');
    fs.writeFileSync(path.join(out, `${n}.response.sse`), turnBody('openai-chat', turn, i + 1));
    fs.writeFileSync(
      path.join(out, `${n}.json`),
      JSON.stringify({
        request: { method: 'POST', path: '/v1/chat/completions' },
        response: {
          status: 200,
          headers: { 'content-type': contentTypeOf('openai-chat') },
          bodyFile: `${n}.response.sse`,
        },
      }),
    );
  });
  return out;
}

/** The content type a format streams with. */
export function contentTypeOf(format: string): string {
  return (FORMATS[format as keyof typeof FORMATS] as { contentType: string }).contentType;
}

/** Spawn `minicode exec` without waiting (for signals); stdout is collected by line. */
export function spawnExec(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcessWithoutNullStreams; lines: string[]; firstLine: Promise<void>; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [CLI, 'exec', ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let buffered = '';
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let onFirst: () => void = () => {};
  const firstLine = new Promise<void>((resolve) => {
    onFirst = resolve;
  });
  child.stdout.on('data', (b: Buffer) => {
    out.push(b);
    buffered += b.toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    if (parts.length) {
      lines.push(...parts);
      onFirst();
    }
  });
  child.stderr.on('data', (b: Buffer) => err.push(b));
  child.stdin.end();
  const done = new Promise<CliResult>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
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
  });
  return { child, lines, firstLine, done };
}

/**
 * Two `exec` runs of the two-turn Anthropic cassette under one `home`, each against its own replay
 * server and scratch project (added to `dirs` for cleanup): the first compiles from source and
 * writes the code cache, the second runs from it. `env` is added to each run's clean environment.
 */
export async function execTwice(
  home: string,
  env: NodeJS.ProcessEnv,
  dirs: string[],
  nodeArgs?: string[],
): Promise<[CliResult, CliResult]> {
  const runs: CliResult[] = [];
  for (let i = 0; i < 2; i++) {
    const server = await startReplayServer(path.join(CASSETTES, 'anthropic-two-turn'));
    const cwd = scratchProject();
    dirs.push(cwd);
    try {
      const args = [
        'exec',
        'Read the README and tell me what it says',
        '--json',
        '--cwd',
        cwd,
        '--provider',
        'anthropic',
      ];
      runs.push(
        await runCli(args, {
          env: cleanEnv(home, {
            ANTHROPIC_BASE_URL: server.origin,
            ANTHROPIC_API_KEY: 'sk-ant-twice-fake-key-0123456789',
            ...env,
          }),
          ...(nodeArgs ? { nodeArgs } : {}),
        }),
      );
    } finally {
      await server.close();
    }
  }
  return runs as [CliResult, CliResult];
}
