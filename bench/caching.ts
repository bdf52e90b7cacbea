/**
 * bench/caching: what prompt caching saves, and whether minicode's requests let it work.
 *
 * 1. Cost of a 20-step agent run with and without caching, per provider's price table. The run
 *    is a usage schedule in each provider's own usage shape (Anthropic `cache_read_input_tokens`
 *    / `cache_creation_input_tokens`, OpenAI `input_tokens_details.cached_tokens`, Gemini
 *    `cachedContentTokenCount`), normalised by the real decoders' usage functions and priced by
 *    `costFor`: a 3,000-token prefix (system + tools) growing by 2,800 tokens a step (about
 *    30k tokens of context on average), 400 output tokens a step. With caching each step reads
 *    the previous step's prefix: Anthropic writes only what the step added (1.25x input price),
 *    OpenAI and Gemini cache in 128-token blocks past the first 1,024 (no write price).
 * 2. A loopback check on the real CLI: an 8-step run per format against a server that logs each
 *    request body; request N+1 must begin with request N's cacheable prefix byte for byte (tools
 *    and system identical, the messages/input array extended, the moving breakpoint aside).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { costFor, findPrice } from '../lib/control/prices.js';
import type { Usage } from '../lib/events/index.js';
import { PROVIDER_FORMATS, type ProviderFormat } from '../lib/decode/formats.js';
import { anthropicUsage } from '../lib/providers/anthropic.js';
import { geminiUsage } from '../lib/providers/gemini.js';
import { responsesUsage } from '../lib/providers/openai-responses.js';
import { startReplayServer } from '../lib/replay/index.js';
import { streamOk } from '../test/corpus/scripted-exchanges.js';
import {
  measurement,
  runIfMain,
  type BenchOptions,
  type BenchReport,
  type Measurement,
  type Ratio,
} from './harness.js';
import { sampleProject } from './support/sample-project.js';
import { repoRoot } from '../test/corpus/provider-corpus.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = repoRoot(import.meta.url);
const CLI = path.join(ROOT, 'dist/cli/main.js');

const STEPS = 20;
const PREFIX = 3_000;
const GROWTH = 2_800;
const OUTPUT = 400;

/** Context tokens sent at step `n` (1-based). */
const contextAt = (n: number): number => PREFIX + (n - 1) * GROWTH;
/** OpenAI/Gemini cache hits: 128-token blocks, nothing under 1,024 tokens. */
const blockCached = (tokens: number): number => (tokens < 1024 ? 0 : Math.floor(tokens / 128) * 128);

/** One provider's usage object for step `n`, in its own wire shape. */
const SHAPES: Record<string, { provider: string; model: string; usage(n: number, cached: boolean): Usage }> = {
  anthropic: {
    provider: 'anthropic',
    model: 'claude-sonnet-4',
    usage: (n, cached) => {
      const context = contextAt(n);
      if (!cached) return anthropicUsage({ input_tokens: context, output_tokens: OUTPUT });
      const read = n === 1 ? 0 : contextAt(n - 1);
      return anthropicUsage({
        input_tokens: 0,
        cache_read_input_tokens: read,
        cache_creation_input_tokens: context - read,
        output_tokens: OUTPUT,
      });
    },
  },
  'openai-responses': {
    provider: 'openai',
    model: 'gpt-5',
    usage: (n, cached) => {
      const context = contextAt(n);
      const hit = cached && n > 1 ? blockCached(contextAt(n - 1)) : 0;
      return responsesUsage({
        input_tokens: context,
        input_tokens_details: { cached_tokens: hit },
        output_tokens: OUTPUT,
        total_tokens: context + OUTPUT,
      });
    },
  },
  gemini: {
    provider: 'google',
    model: 'gemini-2.5-flash',
    usage: (n, cached) => {
      const context = contextAt(n);
      const hit = cached && n > 1 ? blockCached(contextAt(n - 1)) : 0;
      return geminiUsage({
        promptTokenCount: context,
        candidatesTokenCount: OUTPUT,
        totalTokenCount: context + OUTPUT,
        ...(hit ? { cachedContentTokenCount: hit } : {}),
      });
    },
  },
};

function runCost(format: string, cached: boolean): number {
  const shape = SHAPES[format]!;
  const price = findPrice(shape.provider, shape.model);
  let usd = 0;
  for (let n = 1; n <= STEPS; n++) usd += costFor(shape.usage(n, cached), price)!;
  return usd;
}

type Body = Record<string, unknown>;

/** Drop the breakpoints on message blocks (the one that moves each step); tools and system keep theirs. */
function withoutMovingMarks(messages: unknown): unknown {
  return JSON.parse(JSON.stringify(messages, (k, v: unknown) => (k === 'cache_control' ? undefined : v)));
}

/** How many consecutive request pairs have N+1 beginning with N's prefix, out of how many. */
function prefixPairs(format: ProviderFormat, bodies: Body[]): { ok: number; pairs: number } {
  let ok = 0;
  for (let i = 0; i + 1 < bodies.length; i++) {
    const [a, b] = [bodies[i]!, bodies[i + 1]!];
    const head = format === 'anthropic' ? ['tools', 'system'] : ['tools', 'instructions', 'prompt_cache_key'];
    const list = format === 'anthropic' ? 'messages' : 'input';
    const same = head.every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));
    const before = JSON.stringify(withoutMovingMarks(a[list])).slice(0, -1);
    const after = JSON.stringify(withoutMovingMarks(b[list]));
    if (same && after.startsWith(before)) ok++;
  }
  return { ok, pairs: bodies.length - 1 };
}

async function loopback(format: ProviderFormat, steps: number): Promise<{ ok: number; pairs: number }> {
  const wire = (await import(pathToFileURL(path.join(ROOT, 'cassettes/wire-formats.mjs')).href)) as {
    FORMATS: Record<string, { contentType: string; body(t: unknown, n: number, model: string): string }>;
    MODELS: Record<string, string>;
  };
  const spec = wire.FORMATS[format]!;
  const turns = Array.from({ length: steps }, (_, i) =>
    i === steps - 1
      ? { text: 'Done.' }
      : { text: `Step ${i + 1}.`, calls: [{ id: `call_${i + 1}`, name: 'read_file', args: { path: 'README.md' } }] },
  );
  const server = await startReplayServer(
    turns.map((t, i) => streamOk(spec.body(t, i + 1, wire.MODELS[format]!), spec.contentType)),
  );
  const project = sampleProject(ROOT, 'minicode-bench-caching-');
  const { scratch, cwd } = project;
  const env: NodeJS.ProcessEnv = {
    ...project.env,
    ...(format === 'anthropic'
      ? { ANTHROPIC_BASE_URL: server.origin, ANTHROPIC_API_KEY: 'sk-ant-bench-fake-key-0123456789' }
      : { OPENAI_BASE_URL: server.origin, OPENAI_API_KEY: 'sk-bench-fake-key-0123456789abcdef' }),
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [CLI, 'exec', 'Read the README repeatedly', '--json', '--provider', format, '--cwd', cwd],
        { env, stdio: 'ignore' },
      );
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`minicode exec exited ${code}`))));
    });
    return prefixPairs(
      format,
      server.requests.map((r) => JSON.parse(r.body) as Body),
    );
  } finally {
    await server.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Run the benchmark. */
export async function run(options: BenchOptions): Promise<BenchReport> {
  const measurements: Measurement[] = [];
  const ratios: Ratio[] = [];
  const notes: string[] = [];
  for (const format of Object.keys(SHAPES)) {
    const { model } = SHAPES[format]!;
    const without = measurement(`${format} (${model}) 20-step run, no caching`, 'USD', [runCost(format, false)], false);
    const withCache = measurement(
      `${format} (${model}) 20-step run, cached prefix`,
      'USD',
      [runCost(format, true)],
      false,
    );
    measurements.push(without, withCache);
    ratios.push({
      label: `${format} (${model}): cost with caching / without`,
      value: withCache.median / without.median,
      target: { op: '<=', value: 0.5 },
    });
  }
  const steps = options.quick ? 4 : 8;
  // The two formats whose requests carry explicit cache controls.
  for (const format of PROVIDER_FORMATS.filter((f) => f === 'anthropic' || f === 'openai-responses')) {
    const { ok, pairs } = await loopback(format, steps);
    ratios.push({
      label: `${format}: requests N+1 beginning with request N's prefix (share of ${pairs} pairs)`,
      value: ok / pairs,
      target: { op: '>=', value: 1 },
    });
  }
  notes.push(
    `Schedule: ${STEPS} steps, prefix ${PREFIX} tokens, +${GROWTH} tokens a step (average ${Math.round((contextAt(1) + contextAt(STEPS)) / 2)} context tokens), ${OUTPUT} output tokens a step.`,
  );
  notes.push('Prices from lib/control/prices.ts (an estimate: the table goes stale).');
  return {
    name: 'caching',
    title: 'Prompt caching: run cost with and without, and prefix stability on the wire',
    description:
      "Cost of a 20-step run from usage objects in each provider's shape, priced by the price table; loopback check that each request extends the previous one byte for byte.",
    measurements,
    ratios,
    notes,
  };
}

await runIfMain(import.meta.url, run);
