/**
 * The provider fixture corpus as decoder inputs: every stream fixture under
 * `../shared/fixtures/providers/` (read in place), framed as fixtures/README.md says, and our
 * own hand-made streams in `test/streams/`. Shared by the tests and the benchmarks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROVIDER_FORMATS, type ProviderFormat } from '../../lib/decode/formats.js';

/** One decodable input. */
export interface CorpusStream {
  /** Fixture-relative name, e.g. `anthropic/an01-text-small.sse` (`#n` for the n-th recorded interaction). */
  name: string;
  format: ProviderFormat;
  bytes: Uint8Array;
}

function frameChunks(format: CorpusStream['format'], text: string): string {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (format === 'anthropic' || format === 'openai-responses') {
      // Wire-faithful: the event name duplicates data.type (when the line parses at all).
      const m = /"type"\s*:\s*"([^"]+)"/.exec(line);
      if (m) out.push(`event: ${m[1]}\n`);
    }
    out.push(`data: ${line}\n\n`);
  }
  if (format === 'openai-chat') out.push('data: [DONE]\n\n');
  return out.join('');
}

/** Load the stream fixtures from `<fixtures>/providers` (empty when absent). */
export function loadProviderCorpus(fixtures: string): CorpusStream[] {
  const root = path.join(fixtures, 'providers');
  const out: CorpusStream[] = [];
  if (!fs.existsSync(root)) return out;
  for (const folder of PROVIDER_FORMATS) {
    for (const file of fs.readdirSync(path.join(root, folder)).sort()) {
      const full = path.join(root, folder, file);
      const name = `${folder}/${file}`;
      if (file.endsWith('.sse')) {
        // Ollama's OpenAI-compatible /v1 stream is decoded by openai-chat.
        out.push({
          name,
          format: folder === 'ollama' ? 'openai-chat' : folder,
          bytes: new Uint8Array(fs.readFileSync(full)),
        });
      } else if (file.endsWith('.ndjson')) {
        out.push({ name, format: 'ollama', bytes: new Uint8Array(fs.readFileSync(full)) });
      } else if (file.endsWith('.chunks.txt')) {
        out.push({
          name,
          format: folder,
          bytes: new TextEncoder().encode(frameChunks(folder, fs.readFileSync(full, 'utf8'))),
        });
      } else if (file.endsWith('.recording.json')) {
        const rec = JSON.parse(fs.readFileSync(full, 'utf8')) as {
          interactions: { response: { statusCode: number; bodySegments: unknown[] } }[];
        };
        rec.interactions.forEach((it, n) => {
          if (it.response.statusCode !== 200) return; // HTTP errors are tested through http-errors.ts
          const body = it.response.bodySegments.map((s) => `data: ${JSON.stringify(s)}\r\n\r\n`).join('');
          out.push({ name: `${name}#${n}`, format: 'gemini', bytes: new TextEncoder().encode(body) });
        });
      }
    }
  }
  return out;
}

/** Our hand-made streams (test/streams/<format>/*), present in a bare clone. */
export function loadHandMadeCorpus(dir: string): CorpusStream[] {
  const out: CorpusStream[] = [];
  for (const folder of PROVIDER_FORMATS) {
    const d = path.join(dir, folder);
    if (!fs.existsSync(d)) continue;
    for (const file of fs.readdirSync(d).sort()) {
      if (!/\.(sse|ndjson)$/.test(file)) continue;
      out.push({
        name: `hand-made/${folder}/${file}`,
        format: folder,
        bytes: new Uint8Array(fs.readFileSync(path.join(d, file))),
      });
    }
  }
  return out;
}

/** The repository root: the folder whose package.json names `minicode`, found upward from `metaUrl` (sources, or the bench package's build). */
export function repoRoot(metaUrl: string): string {
  for (let dir = path.dirname(new URL(metaUrl).pathname); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file) && (JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string }).name === 'minicode')
      return dir;
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

/**
 * The benchmark corpus: the shared fixtures when present, else our hand-made streams
 * replicated to about `minBytes` (so a bare clone still measures something comparable).
 */
export function benchCorpus(metaUrl: string, minBytes = 800_000): { streams: CorpusStream[]; source: string } {
  const root = repoRoot(metaUrl);
  const fixtures = process.env.MINICODE_FIXTURES ?? path.resolve(root, '../shared/fixtures');
  const shared = loadProviderCorpus(fixtures);
  if (shared.length > 0) return { streams: shared, source: `recorded provider fixtures (${shared.length} streams)` };
  const hand = loadHandMadeCorpus(path.join(root, 'test/streams'));
  const out: CorpusStream[] = [];
  let total = 0;
  for (let n = 0; total < minBytes && hand.length > 0; n++) {
    for (const s of hand) {
      out.push({ ...s, name: `${s.name}#${n}` });
      total += s.bytes.length;
    }
  }
  return {
    streams: out,
    source: `test/streams hand-made, replicated x${Math.ceil(out.length / Math.max(1, hand.length))}`,
  };
}
