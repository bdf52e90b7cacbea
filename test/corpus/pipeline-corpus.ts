/**
 * The end-to-end pipeline corpus (bench/pipeline.ts, its tests and the pipeline tests): every recorded stream we
 * can decode, providers AND native agents, each as one session's input. With
 * `../shared/fixtures` present (read in place) it is the provider and native recordings there;
 * on a bare clone it is our hand-made streams in `test/streams/`. The corpus is replicated
 * whole (every source once per pass) until it holds the requested number of decoded events,
 * so the replicated corpus yields exactly `passes` times the events of one pass.
 *
 * Replication is deterministic and the inputs are bytes on disk, so the test and the benchmark
 * see the same events. The one generated input is the long-session corpus
 * ({@link buildLongSessionCorpus}): no recording is long enough to show what a long session costs.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EventDraft } from '../../lib/events/index.js';
import { createSseFramer } from '../../lib/framing/sse.js';
import { NATIVE_DECODERS } from '../../lib/native/index.js';
import type { StreamDecoder } from '../../lib/decode/types.js';
import { INGEST_READ_BYTES } from '../../lib/pipeline/ingest.js';
import { PROVIDER_DECODERS } from '../../lib/providers/index.js';
import { codexStreamLines } from './codex-stream.js';
import { loadHandMadeCorpus, loadProviderCorpus, repoRoot } from './provider-corpus.js';

/** One session's input. */
export interface PipelineSource {
  /** e.g. `anthropic/an01-text-small.sse`, `native/codex/x.jsonl`, `hand-made/native/codex-all-items.jsonl`. */
  name: string;
  kind: 'provider' | 'native';
  /** A key of PROVIDER_DECODERS (provider) or NATIVE_DECODERS (native). */
  format: string;
  bytes: Uint8Array;
}

/** Chunk size the sources are fed in (a socket read; the decoders are chunking-independent). */
export const CHUNK_BYTES = 16 * 1024;

/** Native recording folders of ../shared/fixtures/native and their decoder. */
const NATIVE_DIRS: Record<string, string> = {
  codex: 'codex',
  claude: 'claude-code',
  gemini: 'gemini-cli',
  opencode: 'opencode',
};

/** Hand-made native streams: the file-name prefix names the decoder. */
const HAND_MADE_NATIVE_PREFIX: [string, string][] = [
  ['codex-', 'codex'],
  ['claude-', 'claude-code'],
  ['gemini-', 'gemini-cli'],
  ['opencode-', 'opencode'],
  ['terminal-', 'terminal'],
];

function nativeFixtures(fixtures: string): PipelineSource[] {
  const out: PipelineSource[] = [];
  const root = path.join(fixtures, 'native');
  for (const [dir, format] of Object.entries(NATIVE_DIRS)) {
    const full = path.join(root, dir);
    if (!fs.existsSync(full)) continue;
    for (const file of fs.readdirSync(full).sort()) {
      if (!file.endsWith('.jsonl')) continue;
      out.push({
        name: `native/${dir}/${file}`,
        kind: 'native',
        format,
        bytes: new Uint8Array(fs.readFileSync(path.join(full, file))),
      });
    }
  }
  return out;
}

function handMadeNative(dir: string): PipelineSource[] {
  if (!fs.existsSync(dir)) return [];
  const out: PipelineSource[] = [];
  for (const file of fs.readdirSync(dir).sort()) {
    const format = HAND_MADE_NATIVE_PREFIX.find(([prefix]) => file.startsWith(prefix))?.[1];
    if (format === undefined || !/\.(jsonl|txt)$/.test(file)) continue;
    out.push({
      name: `hand-made/native/${file}`,
      kind: 'native',
      format,
      bytes: new Uint8Array(fs.readFileSync(path.join(dir, file))),
    });
  }
  return out;
}

/**
 * The sources of one pass: the shared fixtures (providers + native) when `fixtures` holds any,
 * else the hand-made streams of `<root>/test/streams`.
 */
export function loadPipelineSources(
  root: string,
  fixtures = process.env.MINICODE_FIXTURES ?? path.resolve(root, '../shared/fixtures'),
): { sources: PipelineSource[]; origin: string } {
  const providers = loadProviderCorpus(fixtures);
  const natives = nativeFixtures(fixtures);
  if (providers.length + natives.length > 0) {
    const sources = [
      ...providers.map((s): PipelineSource => ({ name: s.name, kind: 'provider', format: s.format, bytes: s.bytes })),
      ...natives,
    ];
    return {
      sources,
      origin: `recorded fixtures (${providers.length} provider + ${natives.length} native recordings)`,
    };
  }
  const streams = path.join(root, 'test/streams');
  const hand = loadHandMadeCorpus(streams).map(
    (s): PipelineSource => ({ name: s.name, kind: 'provider', format: s.format, bytes: s.bytes }),
  );
  const native = handMadeNative(path.join(streams, 'native'));
  return {
    sources: [...hand, ...native],
    origin: `test/streams hand-made (${hand.length} provider + ${native.length} native streams)`,
  };
}

/** A decoder for a source, delivering drafts to `onEvent`. */
export function decoderFor(
  source: PipelineSource,
  onEvent: (e: EventDraft) => void,
): StreamDecoder & { exit?: (code: number | null, signal: string | null) => void } {
  const factory = source.kind === 'provider' ? PROVIDER_DECODERS[source.format] : NATIVE_DECODERS[source.format];
  if (!factory) throw new Error(`no ${source.kind} decoder for ${source.format}`);
  return factory({ onEvent });
}

/** Input bytes between two event-loop turns (four 16 KiB socket reads). */
export const TURN_BYTES = 64 * 1024;

/**
 * The event loop turning as it would between socket reads of a batch run whose sessions
 * interleave (lmdb commits the puts of one turn as one transaction): `afterInput(bytes)` gives
 * the next turn once {@link TURN_BYTES} of input have gone by since the last one, else
 * undefined (nothing to await).
 */
export function inputTurns(): (bytes: number) => Promise<void> | undefined {
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < TURN_BYTES) return undefined;
    since = 0;
    return new Promise<void>((resolve) => setImmediate(resolve));
  };
}

/** The source's bytes in chunks of `size` bytes (default {@link CHUNK_BYTES}). */
export function chunksOf(source: PipelineSource, size = CHUNK_BYTES): Uint8Array[] {
  if (!(size > 0)) throw new RangeError(`chunksOf: size must be positive, got ${size}`);
  const out: Uint8Array[] = [];
  for (let i = 0; i < source.bytes.length; i += size) out.push(source.bytes.subarray(i, i + size));
  return out;
}

/** Decode a source whole, as a session would: feed the chunks, end, and (native) a clean exit. */
export function decodeSource(
  source: PipelineSource,
  chunks: readonly Uint8Array[],
  onEvent: (e: EventDraft) => void,
): void {
  const decoder = decoderFor(source, onEvent);
  for (const c of chunks) decoder.feed(c);
  decoder.end();
  if (source.kind === 'native') decoder.exit?.(0, null);
}

/**
 * Decode a source as {@link decodeSource} does, handing over the drafts in batches: what each
 * chunk decoded to, then what the end (and a native exit) added. Empty batches are not handed over.
 */
export function decodeSourceBatches(
  source: PipelineSource,
  chunks: readonly Uint8Array[],
  onBatch: (drafts: EventDraft[]) => void,
): void {
  let pending: EventDraft[] = [];
  const decoder = decoderFor(source, (e) => pending.push(e));
  const flush = (): void => {
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    onBatch(batch);
  };
  for (const c of chunks) {
    decoder.feed(c);
    flush();
  }
  decoder.end();
  if (source.kind === 'native') decoder.exit?.(0, null);
  flush();
}

/**
 * The input records of a source, as the floor sees them: SSE `data:` payloads (provider SSE
 * formats) or non-empty lines (NDJSON, JSONL, terminal text). `json` is false for a record
 * that is not JSON (`[DONE]`, a terminal line, a corrupt line).
 */
export function recordsOf(source: PipelineSource): { text: string; json: boolean }[] {
  const texts: string[] = [];
  const sse = source.kind === 'provider' && source.format !== 'ollama';
  if (sse) {
    const framer = createSseFramer({ onEvent: (e) => texts.push(e.data) });
    framer.feed(source.bytes);
    framer.end();
  } else {
    for (const line of new TextDecoder().decode(source.bytes).split('\n')) if (line.trim() !== '') texts.push(line);
  }
  return texts.map((text) => {
    try {
      JSON.parse(text);
      return { text, json: true };
    } catch {
      return { text, json: false };
    }
  });
}

/** One pass of the corpus, ready to replay. */
export interface PreparedSource {
  source: PipelineSource;
  chunks: Uint8Array[];
  /** Drafts one decode of this source yields (for counting). */
  drafts: EventDraft[];
  /** The same drafts in the batches {@link decodeSourceBatches} hands over (the "no decode" variant replays these). */
  batches: EventDraft[][];
  records: { text: string; json: boolean }[];
}

/** The replicated corpus. */
export interface PipelineCorpus {
  origin: string;
  pass: PreparedSource[];
  /** How many times the whole pass is replayed. */
  passes: number;
  eventsPerPass: number;
  bytesPerPass: number;
  recordsPerPass: number;
  /** `passes * eventsPerPass`. */
  totalEvents: number;
  totalBytes: number;
}

/** Build the corpus once per process: one decoded pass, replicated to at least `minEvents` events. */
export function buildPipelineCorpus(options: { minEvents: number; root?: string; fixtures?: string }): PipelineCorpus {
  const root = options.root ?? repoRoot(import.meta.url);
  const { sources, origin } =
    options.fixtures !== undefined ? loadPipelineSources(root, options.fixtures) : loadPipelineSources(root);
  return replicate(
    origin,
    sources.map((source) => prepareSource(source)),
    options.minEvents,
  );
}

/** A source decoded once, ready to replay. */
export function prepareSource(source: PipelineSource, chunkBytes = CHUNK_BYTES): PreparedSource {
  const chunks = chunksOf(source, chunkBytes);
  const batches: EventDraft[][] = [];
  decodeSourceBatches(source, chunks, (b) => batches.push(b));
  return { source, chunks, drafts: batches.flat(), batches, records: recordsOf(source) };
}

/**
 * The long-session corpus: ONE seeded Codex `exec --json` stream (test/corpus/codex-stream.ts)
 * of `records` records, as one session, the way `minicode ingest --from codex FILE` or one
 * `exec` run takes a long stream. Same seed, same bytes.
 */
export function buildLongSessionCorpus(options: { records: number }): PipelineCorpus {
  let text = '';
  for (const line of codexStreamLines({ records: options.records })) text += line + '\n';
  const source: PipelineSource = {
    name: `generated/codex-${options.records}.jsonl`,
    kind: 'native',
    format: 'codex',
    bytes: new TextEncoder().encode(text),
  };
  // In the reads `ingest FILE` makes, not socket-sized chunks: the batch per read is what the stages see.
  return replicate(
    `one seeded Codex stream of ${options.records} records (test/corpus/codex-stream.ts) read ${INGEST_READ_BYTES / 1024} KiB at a time, one session`,
    [prepareSource(source, INGEST_READ_BYTES)],
    1,
  );
}

function replicate(origin: string, pass: PreparedSource[], minEvents: number): PipelineCorpus {
  const eventsPerPass = pass.reduce((n, p) => n + p.drafts.length, 0);
  const bytesPerPass = pass.reduce((n, p) => n + p.source.bytes.length, 0);
  const recordsPerPass = pass.reduce((n, p) => n + p.records.length, 0);
  if (eventsPerPass === 0) throw new Error(`the pipeline corpus decodes to no events (${origin})`);
  const passes = Math.max(1, Math.ceil(minEvents / eventsPerPass));
  return {
    origin,
    pass,
    passes,
    eventsPerPass,
    bytesPerPass,
    recordsPerPass,
    totalEvents: passes * eventsPerPass,
    totalBytes: passes * bytesPerPass,
  };
}
