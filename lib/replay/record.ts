import { bodyDigest, redactPath, writeExchange, writeManifest, type Chunk } from './cassette.js';

/** Options of {@link createRecordingFetch}. */
export interface RecordingFetchOptions {
  /** Cassette directory (`--record DIR`); created if absent. */
  dir: string;
  /** Wire format of the provider being recorded (goes in `cassette.json`). */
  format: string;
  model?: string;
  description?: string;
  /** The fetch to wrap; default the global `fetch`. */
  fetch?: typeof fetch;
  /** Injected clock for chunk timing; default `Date.now`. */
  clock?: () => number;
}

/** Statuses whose responses cannot carry a body (a `Response` with one would throw). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function requestParts(input: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1]): { method: string; url: URL; body: string } {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  const method = init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET');
  const raw = init?.body;
  const body = typeof raw === 'string' ? raw : raw instanceof Uint8Array ? Buffer.from(raw).toString('utf8') : '';
  return { method, url, body };
}

function parsedBody(body: string): unknown {
  if (body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/**
 * A `fetch` that records every exchange into a cassette while passing the response through
 * untouched: the body is teed chunk by chunk as the caller reads it (no buffering ahead of the
 * consumer), and the exchange is written when the body ends, errors or is cancelled (then it
 * is marked `truncated`). Secret headers and `key=` query parameters are redacted on disk.
 * An exchange whose body is never read is not written.
 */
export function createRecordingFetch(options: RecordingFetchOptions): typeof fetch {
  const baseFetch = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? Date.now;
  writeManifest(options.dir, {
    schema: 'minicode.cassette.v1',
    format: options.format,
    origin: 'recorded',
    ...(options.model ? { model: options.model } : {}),
    ...(options.description ? { description: options.description } : {}),
  });
  let counter = 0;
  const recording = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]): Promise<Response> => {
    const index = counter++;
    const { method, url, body } = requestParts(input, init);
    const parsed = parsedBody(body);
    const request = {
      method,
      path: redactPath(url.pathname + url.search),
      bodyDigest: bodyDigest(body),
      ...(parsed === undefined ? {} : { body: parsed }),
    };
    const response = await baseFetch(input, init);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (!response.body || NULL_BODY.has(response.status)) {
      writeExchange(options.dir, index, { request, status: response.status, headers, body: Buffer.alloc(0) });
      return response;
    }
    const parts: Buffer[] = [];
    const chunks: Chunk[] = [];
    let last = clock();
    let written = false;
    const finish = (truncated: boolean) => {
      if (written) return;
      written = true;
      writeExchange(options.dir, index, { request, status: response.status, headers, body: Buffer.concat(parts), chunks, truncated });
    };
    const reader = response.body.getReader();
    const teed = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            finish(false);
            controller.close();
            return;
          }
          const now = clock();
          if (value.byteLength > 0) chunks.push({ bytes: value.byteLength, delayMs: Math.max(0, now - last) });
          last = now;
          parts.push(Buffer.from(value));
          controller.enqueue(value);
        } catch (error) {
          finish(true);
          controller.error(error);
        }
      },
      cancel(reason) {
        finish(true);
        return reader.cancel(reason);
      },
    });
    return new Response(teed, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return recording as typeof fetch;
}
