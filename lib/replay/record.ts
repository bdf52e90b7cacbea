import { httpRequest, type HttpClient, type HttpReply } from '../agent/http-client.js';
import { outputRedactor } from '../artefacts.js';
import { bodyDigest, redactPath, writeExchange, writeManifest, type Chunk } from './cassette.js';
import { definedOnly } from '../defined-only.js';

/** Options of {@link createRecordingClient}. */
export interface RecordingClientOptions {
  /** Cassette directory (`--record DIR`); created if absent. */
  dir: string;
  /** Wire format of the provider being recorded (goes in `cassette.json`). */
  format: string;
  model?: string;
  description?: string;
  /** The client to wrap; default {@link httpRequest}. */
  client?: HttpClient;
  /** Injected clock for chunk timing; default `Date.now`. */
  clock?: () => number;
  /**
   * Environment whose credential values are masked in what is written, as the scrub stage
   * masks them in output; default `process.env`.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Statuses whose responses carry no body: written at once, as nothing will be read. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function parsedBody(body: string): unknown {
  if (body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    // Not JSON: recorded as text.
    return body;
  }
}

/** Every string of a parsed JSON value passed through `redact` (keys too: a map may be keyed by a secret). */
function redactJson(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactJson(v, redact));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[redact(k)] = redactJson(v, redact);
    return out;
  }
  return value;
}

/**
 * One line of a response body with secrets masked: a line that is JSON, bare (NDJSON, a JSON
 * body) or after `data:` (SSE), has its strings redacted and is written again only when one
 * changed, so the event stays valid JSON for the decoder on replay. Other lines are kept:
 * redacting raw wire text could cut through an escape (`\"`) and break the event.
 */
function redactLine(line: string, redact: (text: string) => string): string {
  const prefix = /^data: ?/.exec(line)?.[0] ?? '';
  const payload = line.slice(prefix.length);
  const first = payload.trimStart()[0];
  if (first !== '{' && first !== '[' && first !== '"') return line;
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    // Not JSON: the line is kept as it is.
    return line;
  }
  const masked = JSON.stringify(redactJson(parsed, redact));
  return masked === JSON.stringify(parsed) ? line : prefix + masked;
}

/**
 * A response body with the secrets of each JSON event masked, and a chunk plan that still
 * covers it exactly (a mask changes the length: boundaries are kept where they still fall inside
 * the body and the last chunk absorbs the difference). Bytes that are not UTF-8 text are kept.
 */
function redactResponse(
  body: Buffer,
  chunks: Chunk[],
  redact: (text: string) => string,
): { body: Buffer; chunks: Chunk[] } {
  const text = body.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(body)) return { body, chunks };
  const masked = text
    .split('\n')
    .map((line) => redactLine(line, redact))
    .join('\n');
  if (masked === text) return { body, chunks };
  const out = Buffer.from(masked, 'utf8');
  const fitted: Chunk[] = [];
  let covered = 0;
  for (const chunk of chunks) {
    if (covered >= out.length) break;
    const bytes = Math.min(chunk.bytes, out.length - covered);
    fitted.push({ ...chunk, bytes });
    covered += bytes;
  }
  if (covered < out.length) {
    const last = fitted.pop();
    fitted.push(last ? { ...last, bytes: last.bytes + out.length - covered } : { bytes: out.length - covered });
  }
  return { body: out, chunks: fitted };
}

/**
 * A provider client that records every exchange into a cassette while passing the response
 * through untouched: the body is teed chunk by chunk as the caller reads it (no buffering ahead
 * of the consumer), and the exchange is written when the body ends, errors or is left unread to
 * the end (then it is marked `truncated`). Secret headers and `key=` query parameters are
 * redacted on disk, and so are secrets in the request body (tool output the model was sent) and
 * in each JSON event of the response: the same redactor as the scrub stage, with the credential
 * values of `env`. A secret the model streams back split across events is not seen whole in any
 * one event and stays in the response file; the request that carries it on to the next turn is
 * scrubbed. Cassettes get committed; a raw body would publish whatever a tool printed. Replay
 * does not need the raw bodies: exchanges are served in order or matched on method, path and the
 * number of model turns in the live request, never on the recorded body's text. The
 * `bodyDigest` is of the bytes sent, for a reader to tell two requests apart.
 * An exchange whose body is never read is not written.
 */
export function createRecordingClient(options: RecordingClientOptions): HttpClient {
  const client = options.client ?? httpRequest;
  const clock = options.clock ?? Date.now;
  const redact = outputRedactor(options.env ?? process.env);
  writeManifest(
    options.dir,
    definedOnly({
      schema: 'minicode.cassette.v1',
      format: options.format,
      origin: 'recorded',
      model: options.model || undefined,
      description: options.description || undefined,
    }),
  );
  let counter = 0;
  return async (sent) => {
    const index = counter++;
    const url = new URL(sent.url);
    const parsed = parsedBody(sent.body);
    const request = definedOnly({
      method: sent.method,
      path: redactPath(url.pathname + url.search),
      bodyDigest: bodyDigest(sent.body),
      body: parsed === undefined ? undefined : redactJson(parsed, redact),
    });
    const reply = await client(sent);
    const { status, headers } = reply;
    if (NULL_BODY.has(status)) {
      writeExchange(options.dir, index, { request, status, headers, body: Buffer.alloc(0) });
      return reply;
    }
    const parts: Buffer[] = [];
    const chunks: Chunk[] = [];
    let written = false;
    const finish = (truncated: boolean): void => {
      if (written) return;
      written = true;
      const masked = redactResponse(Buffer.concat(parts), chunks, redact);
      writeExchange(options.dir, index, {
        request,
        status,
        headers,
        body: masked.body,
        chunks: masked.chunks,
        truncated,
      });
    };
    async function* teed(): AsyncGenerator<Uint8Array> {
      let last = clock();
      let ended = false;
      try {
        for await (const chunk of reply.body) {
          const now = clock();
          if (chunk.byteLength > 0) chunks.push({ bytes: chunk.byteLength, delayMs: Math.max(0, now - last) });
          last = now;
          parts.push(Buffer.from(chunk));
          yield chunk;
        }
        ended = true;
      } finally {
        // Also reached when the caller stops reading (`return()`) or the stream fails.
        finish(!ended);
      }
    }
    const body = teed();
    const recorded: HttpReply = {
      status,
      headers,
      body,
      async bytes() {
        const all: Buffer[] = [];
        for await (const chunk of body) all.push(Buffer.from(chunk));
        return Buffer.concat(all);
      },
    };
    return recorded;
  };
}
