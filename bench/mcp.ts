/**
 * bench/mcp: what minicode adds to an MCP tool call, and what starting servers costs.
 *
 * 1. One call of a small tool (`echo` of our test server, stdio) through minicode's whole tool
 *    path (registry, policy decision with an allowlist, the MCP adapter with its output cap and
 *    masking, the tool events, the kernel truncation) against the floor: a bare SDK client with
 *    the SDK's own stdio transport calling the same tool on a second copy of the same server.
 *    Calls alternate one by one (A B A B ...), so a noisy neighbour hurts both; p50 and p99 of
 *    each, and the p50 ratio. Most of the gap on a loaded machine is not minicode's code: our
 *    server runs in a session and process group of its own (so a launcher's children die with
 *    it), and the kernel then schedules it as its own group; the same bare client over our
 *    transport with `detached: false` measured within 0.1 ms of the SDK's transport.
 * 2. Start-up of three servers in parallel through minicode's manager (spawn, initialize,
 *    tools/list, naming) against one server started alone the same way, in interleaved rounds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { kernelTruncate } from '../lib/control/truncation.js';
import { startMcpServers } from '../lib/mcp/manager.js';
import type { ResolvedServer } from '../lib/mcp/config.js';
import { DEFAULT_TOOL_LIMITS, createToolRegistry } from '../lib/tools/index.js';
import { executeToolCall } from '../lib/tools/execute.js';
import { measurement, runIfMain, type BenchOptions, type BenchReport } from './harness.js';
import { repoRoot } from '../test/corpus/provider-corpus.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = repoRoot(import.meta.url);
const SERVER = path.join(ROOT, 'test/mcp/servers/hostile.mjs');

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

const server = (name: string): ResolvedServer => ({
  name,
  config: { command: process.execPath, args: [SERVER] },
  startupTimeoutMs: 60_000,
  toolTimeoutMs: 60_000,
  origin: 'bench',
});

async function callOverhead(calls: number): Promise<{ minicode: number[]; bare: number[] }> {
  const manager = await startMcpServers([server('bench')], { env: process.env, cwd: ROOT });
  const registry = createToolRegistry({ extra: manager.tools() });
  const bare = new Client({ name: 'bench', version: '1' });
  await bare.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'ignore' }));
  const signal = new AbortController().signal;
  const ctx = { cwd: ROOT, signal, approve: async () => 'deny' as const, limits: DEFAULT_TOOL_LIMITS, tty: false };
  const policy = { mode: 'auto' as const, allowTools: ['mcp__bench__*'] };
  const minicodeCall = async (i: number): Promise<void> => {
    const executed = await executeToolCall({
      registry,
      call: { id: `c${i}`, name: 'mcp__bench__echo', argumentsText: `{"text":"call ${i}"}` },
      policy,
      ctx,
      onEvent: () => {},
    });
    if (executed.outcome.status !== 'completed') throw new Error(`bench call failed: ${executed.content}`);
    kernelTruncate(executed.content);
  };
  const bareCall = async (i: number): Promise<void> => {
    await bare.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
  };
  const out = { minicode: [] as number[], bare: [] as number[] };
  try {
    for (let i = 0; i < 50; i++) {
      await minicodeCall(i);
      await bareCall(i);
    }
    for (let i = 0; i < calls; i++) {
      // Who goes first swaps every call: the first call after a pause may pay for waking up.
      const order = i % 2 === 0 ? (['minicode', 'bare'] as const) : (['bare', 'minicode'] as const);
      for (const who of order) {
        const t = performance.now();
        await (who === 'minicode' ? minicodeCall(i) : bareCall(i));
        out[who].push(performance.now() - t);
      }
    }
  } finally {
    await bare.close();
    await manager.close();
  }
  return out;
}

async function startups(rounds: number): Promise<{ three: number[]; one: number[] }> {
  const out = { three: [] as number[], one: [] as number[] };
  for (let r = 0; r < rounds + 1; r++) {
    let t = performance.now();
    const three = await startMcpServers([server('a'), server('b'), server('c')], { env: process.env, cwd: ROOT });
    const threeMs = performance.now() - t;
    await three.close();
    t = performance.now();
    const one = await startMcpServers([server('a')], { env: process.env, cwd: ROOT });
    const oneMs = performance.now() - t;
    await one.close();
    if (three.statuses().some((s) => s.state !== 'ready') || one.statuses()[0]?.state !== 'ready')
      throw new Error('a bench server did not start');
    // The first round warms the OS file cache and the SDK import: not counted.
    if (r > 0) {
      out.three.push(threeMs);
      out.one.push(oneMs);
    }
  }
  return out;
}

/** Run the benchmark. */
export async function run(options: BenchOptions): Promise<BenchReport> {
  const calls = options.quick ? 300 : 2_000;
  const rounds = options.quick ? 3 : 9;
  const overhead = await callOverhead(calls);
  const start = await startups(rounds);
  const p = (xs: number[], q: number) => percentile(xs, q);
  const minicodeP50 = measurement(
    'minicode tool path, per call (p50 of calls)',
    'ms',
    [p(overhead.minicode, 50)],
    false,
  );
  const bareP50 = measurement('bare SDK client, per call (p50 of calls)', 'ms', [p(overhead.bare, 50)], false);
  const minicodeP99 = measurement(
    'minicode tool path, per call (p99 of calls)',
    'ms',
    [p(overhead.minicode, 99)],
    false,
  );
  const bareP99 = measurement('bare SDK client, per call (p99 of calls)', 'ms', [p(overhead.bare, 99)], false);
  const three = measurement('three servers started in parallel', 'ms', start.three, false);
  const one = measurement('one server started alone', 'ms', start.one, false);
  return {
    name: 'mcp',
    title: 'MCP: per-call overhead of the tool path, parallel start-up',
    description:
      "One `echo` call of our stdio test server through minicode's whole tool path (policy, adapter, cap, masking, events, kernel truncation) against a bare SDK Client + StdioClientTransport calling the same tool, calls alternating; and three servers started in parallel by minicode's manager against one started alone.",
    measurements: [minicodeP50, bareP50, minicodeP99, bareP99, three, one],
    ratios: [
      { label: 'minicode p50 / bare SDK p50 (per call)', value: minicodeP50.median / bareP50.median },
      { label: 'minicode p99 / bare SDK p99 (per call)', value: minicodeP99.median / bareP99.median },
      { label: 'minicode p50 - bare SDK p50', value: minicodeP50.median - bareP50.median, unit: 'ms' },
      { label: 'three in parallel / one alone (start-up)', value: three.median / one.median },
    ],
    notes: [
      `${calls} calls each after 50 warm-up calls; start-up: ${rounds} rounds after one warm-up round; the machine is shared, so the ratios matter more than the times.`,
      'The per-call gap is mostly scheduling of a server in its own session (the price of killing a whole process group at the end), not minicode code: see the header of bench/mcp.ts.',
    ],
  };
}

await runIfMain(import.meta.url, run);
