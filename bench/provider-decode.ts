/**
 * Full provider decoding throughput: every stream of the corpus through its decoder from
 * `PROVIDER_DECODERS` (framing, guarded JSON.parse, event building), against a floor of plain
 * `JSON.parse` over the same data payloads (extracted beforehand, so the floor does no framing
 * at all). Input: the stream fixtures of ../shared/fixtures/providers (our hand-made streams,
 * replicated, on a bare clone), fed in 16 KiB chunks. Target: decode >= 0.7x the floor.
 *
 * Fairness: each floor payload is its own flat string decoded from its own bytes, the cheapest
 * form `JSON.parse` can get (a slice of a stream holding one emoji would be a two-byte string,
 * ~35% slower to parse, and flatter the decoder); both sides consume their output; both are
 * warmed up for several seconds (the decoders reach their steady state only after a few
 * seconds of JIT work; measured after two rounds they read ~25% slower); rounds are
 * interleaved and timed in process CPU time (the machine is shared).
 */
import { createSseFramer } from '../lib/framing/sse.js';
import { PROVIDER_DECODERS } from '../lib/providers/index.js';
import {
  type BenchOptions,
  type BenchReport,
  interleave,
  measurement,
  ratio,
  runIfMain,
  throughput,
} from './harness.js';
import { benchCorpus, type CorpusStream } from '../test/corpus/provider-corpus.js';

/** The JSON payloads of a stream, as the floor parses them ([DONE] and non-JSON skipped). */
function payloads(s: CorpusStream): string[] {
  const out: string[] = [];
  if (s.format === 'ollama') {
    for (const line of new TextDecoder().decode(s.bytes).split('\n')) if (line.trim()) out.push(line);
  } else {
    const f = createSseFramer({ onEvent: (e) => out.push(e.data) });
    f.feed(s.bytes);
    f.end();
  }
  return out
    .filter((p) => {
      try {
        JSON.parse(p);
        return true;
      } catch {
        return false;
      }
    })
    .map((p) => Buffer.from(p, 'utf8').toString('utf8'));
}

function chunked(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

/** Run the decode benchmark. */
export async function run(options: BenchOptions): Promise<BenchReport> {
  const { streams, source } = benchCorpus(import.meta.url);
  const inputs = streams.map((s) => ({ format: s.format, chunks: chunked(s.bytes, 16 * 1024) }));
  const all = streams.flatMap(payloads);
  const mb = streams.reduce((n, s) => n + s.bytes.length, 0) / 1e6;
  const reps = options.quick ? 3 : 8;
  let events = 0;
  const decodeAll = (): void => {
    for (let r = 0; r < reps; r++) {
      for (const input of inputs) {
        const d = (PROVIDER_DECODERS[input.format] as NonNullable<(typeof PROVIDER_DECODERS)[string]>)({
          onEvent: () => void events++,
        });
        for (const c of input.chunks) d.feed(c);
        d.end();
      }
    }
  };
  let sink = 0;
  const floor = (): void => {
    for (let r = 0; r < reps; r++) for (const p of all) sink += (JSON.parse(p) as object) ? 1 : 0;
  };
  const ms = await interleave(options.quick ? 5 : 11, { decode: decodeAll, floor }, 2, {
    clock: 'cpu',
    warmupMs: options.quick ? 3000 : 6000,
  });
  const a = measurement('full decode (frame + parse + events)', 'MB/s', throughput(ms.decode as number[], mb * reps));
  const b = measurement('floor: JSON.parse of the same payloads', 'MB/s', throughput(ms.floor as number[], mb * reps));
  return {
    name: 'provider-decode',
    title: 'Provider decode throughput',
    description:
      'PROVIDER_DECODERS over the fixture corpus vs JSON.parse of the same payloads (MB/s of wire bytes, same run).',
    measurements: [a, b],
    ratios: [ratio('decode / JSON.parse floor', a, b, { op: '>=', value: 0.7 })],
    notes: [
      `input: ${source}; ${all.length} JSON payloads, ${(mb * 1e6).toFixed(0)} bytes; ${sink > 0 ? 'floor sink ok' : ''}`,
      `decode dispatched ${events} events; process CPU time after ${options.quick ? 3 : 6} s of warm-up`,
    ],
  };
}

await runIfMain(import.meta.url, run);
