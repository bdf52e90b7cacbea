/**
 * SSE framing throughput: our framer (`lib/framing/sse.ts`) against `eventsource-parser` 3.1
 * (fed through `TextDecoder {stream: true}`, as its docs and vercel/ai do) and the `openai`
 * SDK's own decoder (`openai/core/streaming` `_iterSSEMessages`, its real async path), on the
 * same bytes in the same run, at 1 KiB and 16 KiB chunks. Framing only: no JSON parsing.
 * Input: every SSE stream fixture of ../shared/fixtures/providers concatenated (our hand-made
 * streams, replicated, on a bare clone). Target: ours >= 1.5x eventsource-parser.
 *
 * Fairness: every side gets the same chunks and counts every event it dispatches; rounds are
 * interleaved after a warm-up of at least two rounds and 2 s, timed in process CPU time (the
 * machine is shared: wall time mostly measures the neighbours), with an untimed young-generation
 * GC before each timed call; the openai SDK is timed after the two others, not interleaved with
 * them, so that its async garbage is not billed to them.
 */
import { createParser } from 'eventsource-parser';
import { _iterSSEMessages } from 'openai/core/streaming';
import { createSseFramer } from '../lib/framing/sse.js';
import {
  type BenchOptions,
  type BenchReport,
  interleave,
  measurement,
  ratio,
  runIfMain,
  throughput,
} from './harness.js';
import { benchCorpus } from '../test/corpus/provider-corpus.js';

function concat(parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function chunk(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

function ours(chunks: Uint8Array[]): number {
  let n = 0;
  const f = createSseFramer({ onEvent: () => void n++ });
  for (const c of chunks) f.feed(c);
  f.end();
  return n;
}

function eventsourceParser(chunks: Uint8Array[]): number {
  let n = 0;
  const decoder = new TextDecoder();
  const p = createParser({ onEvent: () => void n++ });
  for (const c of chunks) p.feed(decoder.decode(c, { stream: true }));
  p.feed(decoder.decode());
  return n;
}

async function openaiSdk(chunks: Uint8Array[]): Promise<number> {
  let n = 0;
  async function* body() {
    for (const c of chunks) yield c;
  }
  // _iterSSEMessages only reads `response.body` (an async iterable is accepted as is).
  const response = { body: body() } as unknown as Response;
  for await (const _ of _iterSSEMessages(response, new AbortController())) n++;
  return n;
}

function repeat(n: number, fn: () => unknown): void {
  for (let i = 0; i < n; i++) fn();
}

/** Run the framing benchmark. */
export async function run(options: BenchOptions): Promise<BenchReport> {
  const { streams, source } = benchCorpus(import.meta.url);
  const bytes = concat(streams.filter((s) => s.format !== 'ollama').map((s) => s.bytes));
  const mb = bytes.length / 1e6;
  const rounds = options.quick ? 5 : 11;
  const reps = options.quick ? 4 : 10;
  const measurements = [];
  const ratios = [];
  const notes = [`input: ${source}; ${bytes.length} bytes of SSE; process CPU time, minor GC before each timed call`];
  for (const size of [1024, 16 * 1024]) {
    const chunks = chunk(bytes, size);
    const counts = { ours: ours(chunks), esp: eventsourceParser(chunks), openai: await openaiSdk(chunks) };
    notes.push(
      `${size} B chunks: events ours ${counts.ours}, eventsource-parser ${counts.esp}, openai SDK ${counts.openai} (the SDK dispatches data-less events)`,
    );
    // Each round frames the input `reps` times: rounds of a few ms are too noisy on a shared machine.
    // The SDK runs last, on its own: its async path leaves old-generation garbage whose concurrent
    // marking (CPU time of this process) would otherwise land in the two synchronous framers' rounds.
    const timing = { clock: 'cpu', collectBetween: true, warmupMs: options.quick ? 1000 : 2000 } as const;
    const ms = await interleave(
      rounds,
      { ours: () => repeat(reps, () => ours(chunks)), esp: () => repeat(reps, () => eventsourceParser(chunks)) },
      2,
      timing,
    );
    const sdk = await interleave(
      rounds,
      {
        openai: async () => {
          for (let i = 0; i < reps; i++) await openaiSdk(chunks);
        },
      },
      2,
      { ...timing, warmupMs: 0 },
    );
    const label = size === 1024 ? '1 KiB' : '16 KiB';
    const a = measurement(`ours @ ${label}`, 'MB/s', throughput(ms.ours as number[], mb * reps));
    const b = measurement(`eventsource-parser 3.1 @ ${label}`, 'MB/s', throughput(ms.esp as number[], mb * reps));
    const c = measurement(
      `openai SDK _iterSSEMessages @ ${label}`,
      'MB/s',
      throughput(sdk.openai as number[], mb * reps),
    );
    measurements.push(a, b, c);
    ratios.push(ratio(`ours / eventsource-parser @ ${label}`, a, b, { op: '>=', value: 1.5 }));
    ratios.push(ratio(`ours / openai SDK @ ${label}`, a, c));
  }
  return {
    name: 'sse-framing',
    title: 'SSE framing throughput',
    description:
      'lib/framing/sse.ts vs eventsource-parser 3.1 and the openai SDK decoder on the same bytes, same run (framing only).',
    measurements,
    ratios,
    notes,
  };
}

await runIfMain(import.meta.url, run);
