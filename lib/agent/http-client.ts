/**
 * The provider HTTP client: `node:http`/`node:https` with a streamed body. We use it rather than
 * the global `fetch` on the default path because Node's fetch (undici) parses HTTP with a
 * WebAssembly build of llhttp that V8 compiles (and tiers up) in every fresh process: about
 * 30 ms of start-up and 20–30 MB of peak memory per `exec`, measured in bench/exec-cost.ts.
 * `node:http` uses the native parser. An injected `fetch` (recording with `--record`, tests)
 * goes through {@link fromFetch}, so both paths give the caller the same shape.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** A provider response: status, lower-case headers, and the body as a byte stream. */
export interface HttpReply {
  status: number;
  headers: Record<string, string>;
  body: AsyncIterable<Uint8Array>;
  /** The whole body (for error responses). */
  bytes(): Promise<Uint8Array>;
}

/** What a request needs. */
export interface HttpRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
}

function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

async function collect(body: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

/** Send a request with node:http(s); rejects on connection errors (the error keeps its `code`, e.g. ECONNREFUSED). */
export async function httpRequest(request: HttpRequest): Promise<HttpReply> {
  const url = new URL(request.url);
  const mod = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise<HttpReply>((resolve, reject) => {
    const req = mod.request(url, { method: request.method, headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) }, signal: request.signal }, (res) => {
      resolve({ status: res.statusCode ?? 0, headers: flatten(res.headers), body: res, bytes: () => collect(res) });
    });
    req.on('error', reject);
    req.end(request.body);
  });
}

/** Adapt a `fetch` implementation to {@link HttpReply}. */
export async function fromFetch(doFetch: typeof fetch, request: HttpRequest): Promise<HttpReply> {
  const response = await doFetch(request.url, { method: request.method, headers: request.headers, body: request.body, signal: request.signal });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  const empty: AsyncIterable<Uint8Array> = { async *[Symbol.asyncIterator]() {} };
  return {
    status: response.status,
    headers,
    body: (response.body as unknown as AsyncIterable<Uint8Array> | null) ?? empty,
    bytes: async () => new Uint8Array(await response.arrayBuffer()),
  };
}
