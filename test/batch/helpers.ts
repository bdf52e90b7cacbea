import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ProviderFormat } from '../../lib/agent/conversation.js';
import { baseUrlForOrigin } from '../../lib/decode/formats.js';
import { providerSettings } from '../../lib/agent/provider-settings.js';
import { runLimits } from '../../lib/agent/run-limits.js';
import { toolEnvironment } from '../../lib/agent/tool-environment.js';
import { promptSettings } from '../../lib/agent/prompt-settings.js';
import type { LineSetup } from '../../lib/batch/run-line.js';
import { closePool, configurePool } from '../../lib/control/pool.js';
import { loadCassette } from '../../lib/replay/cassette.js';
import { startReplayServer } from '../../lib/replay/server.js';
import { openStore, type EventStore } from '../../lib/store/index.js';
import { CLI, ROOT } from '../helpers/cli.js';

/** The hand-made two-turn cassette every batch test replays (read_file README.md, then an answer). */
export const CASSETTE = path.join(ROOT, 'cassettes/openai-chat-two-turn');

const poolFixtures: { close(): Promise<void> }[] = [];

/**
 * For tests that run lines on the worker pool in-process: the replay provider serving
 * {@link CASSETTE} as a line setup, a store in `storeDir`, and a pool of one thread. Close them
 * with {@link closePoolFixtures} in the file's `afterAll`.
 */
export async function startPoolFixture(storeDir: string): Promise<{ setup: LineSetup; store: EventStore }> {
  const cassette = loadCassette(CASSETTE);
  const format = cassette.manifest.format as ProviderFormat;
  const server = await startReplayServer(CASSETTE, { order: 'by-turn', recordRequests: false });
  poolFixtures.push(server);
  const setup: LineSetup = {
    provider: providerSettings({
      format,
      model: cassette.manifest.model ?? 'replay',
      baseUrl: baseUrlForOrigin(format, server.origin),
      apiKey: 'replay',
    }),
    limits: runLimits(),
    environment: toolEnvironment(process.cwd()),
    prompting: promptSettings(),
  };
  const store = openStore({ dir: storeDir });
  poolFixtures.push(store);
  configurePool({ maxThreads: 1 });
  return { setup, store };
}

/** Close the pool, then what {@link startPoolFixture} opened (stores before servers). */
export async function closePoolFixtures(): Promise<void> {
  await closePool();
  configurePool({});
  for (const fixture of poolFixtures.splice(0).reverse()) await fixture.close();
}

/** A scratch directory with a README.md (what the cassette's tool call reads) and `n` prompts. */
export function makeWorkdir(n: number, prefix = 'p'): { dir: string; input: string; out: string; store: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-batch-test-'));
  fs.writeFileSync(path.join(dir, 'README.md'), '# Sample\n\nA tiny project.\n');
  const input = path.join(dir, 'prompts.jsonl');
  fs.writeFileSync(
    input,
    Array.from({ length: n }, (_, i) =>
      JSON.stringify({ id: `${prefix}${i}`, prompt: `What does README.md say? (${i})`, metadata: { n: i } }),
    ).join('\n') + '\n',
  );
  return { dir, input, out: path.join(dir, 'out'), store: path.join(dir, 'store') };
}

/**
 * Every record's id in results.jsonl and errors.jsonl (in that order). Only complete lines count:
 * a line still being written (or torn by a kill) is not a record yet, as the batch itself
 * treats it on resume.
 */
export function recordIds(out: string): { results: string[]; errors: string[]; all: string[] } {
  const read = (f: string): string[] => {
    const file = path.join(out, f);
    if (!fs.existsSync(file)) return [];
    const text = fs.readFileSync(file, 'utf8');
    return text
      .slice(0, text.lastIndexOf('\n') + 1)
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { id: string }).id);
  };
  const results = read('results.jsonl');
  const errors = read('errors.jsonl');
  return { results, errors, all: [...results, ...errors] };
}

/** The records of `out/file` (results.jsonl by default), one per non-empty line; none while the file does not exist. */
export function readRecords<T = Record<string, any>>(out: string, file = 'results.jsonl'): T[] {
  const p = path.join(out, file);
  if (!fs.existsSync(p)) return [];
  return fs
    .readFileSync(p, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

/** Start the compiled CLI without waiting (for kills); NO_COLOR, piped output. */
export function startCli(
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): ChildProcess & {
  output: () => { stdout: string; stderr: string };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
} {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (b: Buffer) => out.push(b));
  child.stderr!.on('data', (b: Buffer) => err.push(b));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return Object.assign(child, {
    output: () => ({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    exited,
  });
}

/** The Redis the distributed tests use: MINICODE_TEST_REDIS_URL, else 127.0.0.1:6390 (what .ci/run starts). */
export const REDIS_URL = process.env.MINICODE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6390';

/** True when something answers PING at REDIS_URL within a second. */
export function redisReachable(url = REDIS_URL): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port || 6379) });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (b) => done(b.toString().startsWith('+PONG')));
  });
}
