import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PRIVATE_FILE_MODE, writeJsonArtefact } from '../artefacts.js';
import { MinicodeError } from '../errors.js';
import { isCredentialName } from '../policy/credentials.js';
import { definedOnly } from '../defined-only.js';
import { errnoOf } from '../debug.js';

/**
 * A cassette is a directory: `cassette.json` (what it is: format, model, whether hand-made or
 * recorded) and, per HTTP exchange in order, `NNN.json` (request line, body digest, response
 * status and headers minus secrets, chunk timing) beside `NNN.response.<ext>` holding the
 * response body bytes exactly as received (after HTTP content decoding).
 */

/** How one slice of the body was (or is to be) delivered. */
export const ChunkSchema = z.object({
  bytes: z.number().int().positive(),
  delayMs: z.number().nonnegative().optional(),
});
export type Chunk = z.infer<typeof ChunkSchema>;

/** The on-disk description of one exchange. */
export const ExchangeFileSchema = z.object({
  request: z
    .object({
      method: z.string(),
      path: z.string(),
      bodyDigest: z.string().optional(),
      /** The request body: parsed JSON when it was JSON, else the text. */
      body: z.unknown().optional(),
    })
    .optional(),
  response: z.object({
    status: z.number().int().min(100).max(599),
    headers: z.record(z.string(), z.string()).default({}),
    /** File beside this one holding the body bytes. */
    bodyFile: z.string().optional(),
    /** Or the body inline as base64 (small error bodies). */
    bodyBase64: z.string().optional(),
    chunks: z.array(ChunkSchema).optional(),
    /** The stream ended abnormally while recording (the body is what arrived). */
    truncated: z.boolean().optional(),
  }),
});
export type ExchangeFile = z.infer<typeof ExchangeFileSchema>;

/** The cassette's manifest. */
export const CassetteManifestSchema = z.object({
  schema: z.literal('minicode.cassette.v1'),
  /** Wire format of the responses: openai-chat, openai-responses, anthropic, gemini, ollama. */
  format: z.string(),
  model: z.string().optional(),
  /** `hand-made` (written by us in the real wire format) or `recorded` (`--record`). */
  origin: z.enum(['hand-made', 'recorded']),
  description: z.string().optional(),
});
export type CassetteManifest = z.infer<typeof CassetteManifestSchema>;

/** One exchange in memory, ready to serve. */
export interface Exchange {
  request?: { method: string; path: string; bodyDigest?: string; body?: unknown };
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  chunks?: Chunk[];
  /** Scripted: destroy the socket after this many body bytes (a stream cut mid-event). */
  cutAfterBytes?: number;
  /** Scripted: chunk delays are part of the script and always honoured. */
  scripted?: boolean;
}

/** A loaded cassette. */
export interface Cassette {
  dir: string;
  manifest: CassetteManifest;
  exchanges: Exchange[];
}

/** Header names never written to a cassette, whatever their value. */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'cookie',
  'set-cookie',
  'openai-organization',
  'openai-project',
  'anthropic-organization-id',
]);

/** The marker that replaces a secret header value. */
export const REDACTED = '[redacted]';

/** Headers with secrets replaced by `[redacted]` (names kept, so the shape stays visible). */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    out[lower] = SECRET_HEADERS.has(lower) || isCredentialName(lower.replace(/-/g, '_')) ? REDACTED : value;
  }
  return out;
}

/** A URL path and query with credential-looking query parameters (`key=`, `api_key=`) redacted. */
export function redactPath(pathAndQuery: string): string {
  const [p, q] = pathAndQuery.split('?', 2) as [string, string | undefined];
  if (q === undefined) return p;
  const params = new URLSearchParams(q);
  for (const name of [...params.keys()]) {
    if (name === 'key' || isCredentialName(name)) params.set(name, REDACTED);
  }
  return `${p}?${params.toString()}`;
}

/** `sha256:<hex>` of a request body, for matching without comparing whole prompts. */
export function bodyDigest(body: string | Buffer): string {
  return `sha256:${createHash('sha256').update(body).digest('hex')}`;
}

/** The file extension for a body of this content type. */
export function bodyExtension(contentType: string | undefined): string {
  const ct = (contentType ?? '').toLowerCase();
  if (ct.includes('event-stream')) return 'sse';
  if (ct.includes('ndjson') || ct.includes('jsonl')) return 'ndjson';
  if (ct.includes('json')) return 'json';
  if (ct.startsWith('text/')) return 'txt';
  return 'bin';
}

/** `001`, `002`, ...: exchange file stem for a zero-based index. */
export function exchangeStem(index: number): string {
  return String(index + 1).padStart(3, '0');
}

/** Read a cassette directory. A missing or malformed one is `MINICODE_E_INPUT_UNREADABLE`. */
export function loadCassette(dir: string): Cassette {
  const fail = (message: string): never => {
    throw new MinicodeError('MINICODE_E_INPUT_UNREADABLE', `cassette ${dir}: ${message}`, {
      action: 'pass --cassette a directory written by --record or shipped in cassettes/',
    });
  };
  let manifestRaw: unknown;
  try {
    manifestRaw = JSON.parse(fs.readFileSync(path.join(dir, 'cassette.json'), 'utf8'));
  } catch (error) {
    fail(`cannot read cassette.json (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const manifest = CassetteManifestSchema.safeParse(manifestRaw);
  if (!manifest.success) return fail(`invalid cassette.json: ${manifest.error.issues[0]?.message ?? 'bad shape'}`);
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^\d{3,}\.json$/.test(f))
    .sort();
  const exchanges = files.map((file): Exchange => {
    let parsed: ExchangeFile;
    try {
      parsed = ExchangeFileSchema.parse(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')));
    } catch (error) {
      return fail(`${file} is not a valid exchange: ${(error as Error).message.split('\n')[0]}`);
    }
    const { response } = parsed;
    let body = Buffer.alloc(0);
    if (response.bodyFile) {
      if (path.basename(response.bodyFile) !== response.bodyFile)
        fail(`${file}: bodyFile must be a file name beside it`);
      try {
        body = fs.readFileSync(path.join(dir, response.bodyFile));
      } catch (error) {
        fail(
          `${file}: body file ${response.bodyFile} ${errnoOf(error) === 'ENOENT' ? 'is missing' : `cannot be read: ${(error as Error).message}`}`,
        );
      }
    } else if (response.bodyBase64) body = Buffer.from(response.bodyBase64, 'base64');
    return definedOnly({
      request: parsed.request ? (parsed.request as Exchange['request'] & object) : undefined,
      status: response.status,
      headers: response.headers,
      body,
      chunks: response.chunks,
      // A hand-made cassette's chunk delays are part of its script (a slow stream to cancel),
      // so they are always honoured; a recording's delays are timing noise, replayed on request.
      scripted: manifest.data.origin === 'hand-made' && response.chunks ? true : undefined,
    });
  });
  if (exchanges.length === 0) fail('no exchanges (expected 001.json, 002.json, ...)');
  return { dir, manifest: manifest.data, exchanges };
}

/** Write one exchange (`NNN.json` + `NNN.response.<ext>`) into a cassette directory. */
export function writeExchange(dir: string, index: number, exchange: Exchange & { truncated?: boolean }): void {
  const stem = exchangeStem(index);
  const bodyFile = `${stem}.response.${bodyExtension(exchange.headers['content-type'])}`;
  // The recorder has scrubbed the body event by event (its chunk sizes are of the scrubbed bytes).
  fs.writeFileSync(path.join(dir, bodyFile), exchange.body, { mode: PRIVATE_FILE_MODE });
  const file: ExchangeFile = definedOnly({
    request: exchange.request,
    response: definedOnly({
      status: exchange.status,
      headers: redactHeaders(exchange.headers),
      bodyFile,
      chunks: exchange.chunks,
      truncated: exchange.truncated || undefined,
    }),
  });
  writeJsonArtefact(path.join(dir, `${stem}.json`), file);
}

/** Write the manifest of a cassette directory (creating the directory). */
export function writeManifest(dir: string, manifest: CassetteManifest): void {
  fs.mkdirSync(dir, { recursive: true });
  writeJsonArtefact(path.join(dir, 'cassette.json'), manifest);
}
