/**
 * What `minicode exec --json` loads at start-up. Per-run cost is measured in bench/exec-cost.ts;
 * this only guards the module graph of a real run of the built CLI (the esbuild bundle `bin`
 * names, against a loopback replay server), so that the exec path does not quietly go back to
 * loading tsc's per-module output, the event schemas (payloads and envelopes, only for
 * validation and the JSON Schema), zod before the first line, the native-agent decoders (only `ingest` and
 * `run`), the MCP SDK (only a configured server), or the packages other commands use.
 *
 * A loaded bundle file is mapped back to the source modules it holds through
 * `dist/bundle-meta.json` (written by scripts/bundle.ts): a chunk's modules all run when it loads.
 * The module hook sees ES modules only (lmdb's own package is one; its CommonJS dependencies are
 * not seen, but load only through it).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { ROOT } from '../helpers/cli.js';
import { CASSETTES, cleanEnv, scratchProject, tempDir } from '../exec/helpers.js';

/** A module hook that prints every loaded file URL on stderr (hand-written here, not a fixture). */
const HOOKS = `data:text/javascript,${encodeURIComponent(
  "export async function load(url, context, next) { if (url.startsWith('file:')) process._rawDebug('LOADED ' + url); return next(url, context); }",
)}`;
const REGISTER = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(HOOKS)});`)}`;

/** Packages the exec --json path must not load. */
const UNWANTED_PACKAGES = [
  '@modelcontextprotocol/sdk',
  '@agentclientprotocol/sdk',
  'marked',
  'chalk',
  'bullmq',
  'ioredis',
  'gpt-tokenizer',
  'piscina',
  '@opentelemetry',
];
/** Our modules the exec --json path must not load. */
const UNWANTED_MODULES = [
  'lib/events/payloads.ts',
  'lib/events/envelope.ts',
  'lib/events/index.ts',
  'lib/native/index.ts',
  'lib/pipeline/ingest.ts',
  'lib/mcp/manager.ts',
  'lib/render/index.ts',
  'lib/replay/provider.ts',
  // The file walker of grep and glob (and its packages, ignore and picomatch): this run never searches.
  'lib/tools/walk.ts',
  'node_modules/picomatch/index.js',
  'node_modules/ignore/index.js',
];

/** A preload that marks, on stderr, the first write to stdout (synchronously, as the module hook's lines, so the order holds). */
const FIRST_STDOUT = 'minicode-test: first stdout write';
const MARK_FIRST_WRITE = `data:text/javascript,${encodeURIComponent(
  `const write = process.stdout.write; process.stdout.write = function (...args) { process.stdout.write = write; process._rawDebug(${JSON.stringify(FIRST_STDOUT)}); return write.apply(this, args); };`,
)}`;
/** Modules `exec --json` needs only after its first line: they load once `session.started` is out. */
const AFTER_FIRST_LINE = [
  'lib/agent/loop.ts',
  'lib/tools/index.ts',
  'lib/tools/bash.ts',
  'lib/providers/anthropic.ts',
  'lib/checkpoints/turn.ts',
  'lib/store/store.ts',
  'lib/store/databases.ts',
];
/** Packages `exec --json` loads only after its first line (the store's: lmdb and its CommonJS tree). */
const PACKAGES_AFTER_FIRST_LINE = ['lmdb', 'msgpackr', 'ordered-binary'];

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer(path.join(CASSETTES, 'anthropic-two-turn'));
});
afterAll(async () => {
  await server?.close();
});

/**
 * Run `exec --json` with the loader hook; returns the files it loaded, relative to the root, in
 * order, with {@link FIRST_STDOUT} where the first stdout write came.
 */
async function loadedByExec(): Promise<string[]> {
  const cwd = scratchProject();
  const home = tempDir('minicode-graph-home-');
  const env = {
    ...process.env,
    ...cleanEnv(home, {
      ANTHROPIC_BASE_URL: server.origin,
      ANTHROPIC_API_KEY: 'sk-ant-graph-fake-key-0123456789',
      HOME: home,
    }),
  };
  const child = spawn(
    process.execPath,
    [
      '--import',
      REGISTER,
      '--import',
      MARK_FIRST_WRITE,
      path.join(ROOT, 'dist/cli/main.js'),
      'exec',
      'Read the README and tell me what it says',
      '--json',
      '--cwd',
      cwd,
      '--provider',
      'anthropic',
    ],
    { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const stderr = Buffer.concat(err).toString('utf8');
  expect(code, stderr).toBe(0);
  expect(Buffer.concat(out).toString('utf8')).toContain('"type":"summary","ok":true');
  fs.rmSync(cwd, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
  return stderr
    .split('\n')
    .filter((l) => l === FIRST_STDOUT || l.startsWith('LOADED '))
    .map((l) =>
      l === FIRST_STDOUT
        ? l
        : path
            .relative(ROOT, new URL(l.slice('LOADED '.length)).pathname)
            .split(path.sep)
            .join('/'),
    );
}

describe('the exec start-up module graph', () => {
  it('runs exec --json from the bundle (an entry file and chunks, never the per-module build) and has its first line out before the agent loop, the tools and the providers load', async () => {
    const meta = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/bundle-meta.json'), 'utf8')) as {
      outputs: Record<string, string[]>;
    };
    const loaded = await loadedByExec();
    const ours = loaded.filter((f) => f.startsWith('dist/'));
    expect(ours[0]).toBe('dist/cli/main.js');
    for (const file of ours) expect(file === 'dist/cli/main.js' || file.startsWith('dist/chunks/'), file).toBe(true);
    // The first line goes out before the agent loop, the tools, the provider clients and the store are read.
    const firstWrite = loaded.indexOf(FIRST_STDOUT);
    expect(firstWrite).toBeGreaterThan(0);
    for (const name of PACKAGES_AFTER_FIRST_LINE) {
      const first = loaded.findIndex((f) => f.includes(`node_modules/${name}/`));
      expect(first, `${name} is read`).toBeGreaterThan(firstWrite);
    }
    const before = loaded.slice(0, firstWrite).flatMap((file) => meta.outputs[file] ?? []);
    const after = loaded.slice(firstWrite + 1).flatMap((file) => meta.outputs[file] ?? []);
    for (const late of AFTER_FIRST_LINE) {
      expect(before, late).not.toContain(late);
      expect(after, late).toContain(late);
    }
    // With no config file there is nothing to validate; zod comes with the tools' input schemas, after the first line.
    expect(before.filter((m) => m.startsWith('node_modules/zod/'))).toEqual([]);
    const modules = ours.flatMap((file) => meta.outputs[file] ?? []);
    expect(modules).not.toContain('lib/config.ts');
    expect(modules).toContain('cli/exec-action.ts');
    expect(modules).toContain('lib/events/draft.ts');
    for (const unwanted of UNWANTED_MODULES) expect(modules, unwanted).not.toContain(unwanted);
    const packages = [...loaded, ...modules].filter((f) => f.includes('node_modules/'));
    for (const name of UNWANTED_PACKAGES)
      expect(packages.filter((f) => f.includes(`node_modules/${name}/`))).toEqual([]);
  });

  it('keeps draft and the ingest formats exported from their public modules', async () => {
    const events = await import('../../lib/events/index.js');
    const { draft } = await import('../../lib/events/draft.js');
    expect(events.draft).toBe(draft);
    const ingest = await import('../../lib/pipeline/ingest.js');
    const { INGEST_FORMATS } = await import('../../lib/decode/formats.js');
    expect(ingest.INGEST_FORMATS).toBe(INGEST_FORMATS);
  });

  it('keeps the import-free usage field list in the order of the Usage schema', async () => {
    const { Usage, USAGE_FIELDS } = await import('../../lib/events/payloads.js');
    expect([...USAGE_FIELDS]).toEqual(Object.keys(Usage.shape));
  });
});
