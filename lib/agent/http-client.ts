/**
 * The provider HTTP client, the one every provider request goes through: `node:http`/`node:https`
 * with the response body streamed as the caller reads it (a paused read holds the socket:
 * backpressure reaches the provider). Not the global `fetch`: Node's fetch (undici) parses HTTP
 * with a WebAssembly build of llhttp that V8 compiles in every fresh process, which a short
 * `exec` would pay for on each run (figures in docs/exec.md); `node:http` uses Node's native
 * parser. Recording (`--record`) wraps this client (lib/replay/record.ts).
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

/** What carries a provider request: {@link httpRequest}, or a wrapper of it (recording). */
export type HttpClient = (request: HttpRequest) => Promise<HttpReply>;

/** Send a request with node:http(s); rejects on connection errors (the error keeps its `code`, e.g. ECONNREFUSED). */
export const httpRequest: HttpClient = async (request) => {
  const url = new URL(request.url);
  const mod = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise<HttpReply>((resolve, reject) => {
    const req = mod.request(
      url,
      {
        method: request.method,
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        signal: request.signal,
      },
      (res) => {
        resolve({ status: res.statusCode ?? 0, headers: flatten(res.headers), body: res, bytes: () => collect(res) });
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
};
