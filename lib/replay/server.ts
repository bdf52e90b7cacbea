import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyDigest, loadCassette, type Chunk, type Exchange } from './cassette.js';
import { modelTurnsOf } from './turns.js';
import { definedOnly } from '../defined-only.js';

/** A request the replay server received (for assertions and for the loop's diagnostics). */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  bodyDigest: string;
  /** Index of the exchange served, -1 when none was left / none matched, -2 when `intercept` answered. */
  served: number;
}

/** Options of {@link startReplayServer}. */
export interface ReplayServerOptions {
  /**
   * `sequential` (default): the n-th request gets the n-th exchange. `match`: the first unused
   * exchange with the same method and path. `by-turn`: the exchange whose index is the number
   * of model turns already in the request body (no assistant message yet -> exchange 1, one
   * assistant turn and its tool results -> exchange 2, ...); exchanges are never used up, so
   * any number of concurrent conversations replay the same cassette independently.
   */
  order?: 'sequential' | 'match' | 'by-turn';
  /**
   * Answer a request before the cassette does (a scripted 429 storm, an outage): return an
   * exchange to serve it instead, or undefined to let the cassette answer. Default none.
   */
  intercept?: (request: { method: string; path: string; body: Buffer; bodyDigest: string }) => Exchange | undefined;
  /** Keep every request in `requests` (tests); default true. A batch of thousands passes false to stay bounded. */
  recordRequests?: boolean;
  /** Split bodies without a chunk plan into writes of this many bytes; default: one write. */
  chunkSize?: number;
  /** Delay between chunks when the exchange gives none; default 0. */
  delayMs?: number;
  /** Honour recorded `delayMs` in chunk plans; default false (replay as fast as possible). */
  honorTiming?: boolean;
  /** Injected delay (tests may replace it); default `setTimeout`. */
  sleep?: (ms: number) => Promise<void>;
}

/** A running replay server. */
export interface ReplayServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  requests: ReceivedRequest[];
  /** Exchanges not served yet. */
  remaining(): number;
  close(): Promise<void>;
}

/** Headers that describe the recorded transfer, not the body we now send. */
const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'content-encoding', 'connection', 'keep-alive']);

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The write plan for a body: recorded/scripted chunks, else fixed-size slices, else one write. */
function plan(exchange: Exchange, options: ReplayServerOptions): Chunk[] {
  const total = exchange.body.length;
  if (exchange.chunks && exchange.chunks.length > 0) {
    // Recorded delays are replayed only on request (tests stay fast); scripted ones always are.
    const keep = exchange.scripted === true || options.honorTiming === true;
    const chunks = exchange.chunks.map((c) => (keep || c.delayMs === undefined ? c : { bytes: c.bytes }));
    const covered = chunks.reduce((n, c) => n + c.bytes, 0);
    return covered < total ? [...chunks, { bytes: total - covered }] : chunks;
  }
  const size = options.chunkSize && options.chunkSize > 0 ? options.chunkSize : total || 1;
  const out: Chunk[] = [];
  for (let at = 0; at < total; at += size)
    out.push(definedOnly({ bytes: Math.min(size, total - at), delayMs: options.delayMs || undefined }));
  return out;
}

/** Stream one exchange: status, headers, then the body in planned chunks; a cut destroys the socket. */
async function serve(res: http.ServerResponse, exchange: Exchange, options: ReplayServerOptions): Promise<void> {
  const sleep = options.sleep ?? defaultSleep;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(exchange.headers)) if (!HOP_HEADERS.has(k.toLowerCase())) headers[k] = v;
  res.writeHead(exchange.status, headers);
  let offset = 0;
  for (const chunk of plan(exchange, options)) {
    if (res.destroyed) return;
    // A delay sits between chunks; the first chunk goes out with the headers.
    const delay = chunk.delayMs ?? options.delayMs ?? 0;
    if (delay > 0 && offset > 0) await sleep(delay);
    if (res.destroyed) return;
    let slice = exchange.body.subarray(offset, offset + chunk.bytes);
    if (exchange.cutAfterBytes !== undefined && offset + slice.length >= exchange.cutAfterBytes) {
      slice = slice.subarray(0, exchange.cutAfterBytes - offset);
      // Flush what the server "sent", then drop the connection without the chunked terminator.
      if (slice.length > 0) await new Promise<void>((resolve) => res.write(slice, () => resolve()));
      res.socket?.destroy();
      return;
    }
    res.write(slice);
    offset += slice.length;
  }
  if (exchange.cutAfterBytes !== undefined) {
    res.socket?.destroy();
    return;
  }
  res.end();
}

/**
 * Start a loopback HTTP server (127.0.0.1, ephemeral port) that answers with the given
 * exchanges — a cassette directory or scripted exchanges — so a provider client goes through
 * its real HTTP and stream decoding path. Requests past the last exchange get a 500 with
 * `x-minicode-replay: exhausted`.
 */
export async function startReplayServer(
  source: string | readonly Exchange[],
  options: ReplayServerOptions = {},
): Promise<ReplayServer> {
  const exchanges = typeof source === 'string' ? loadCassette(source).exchanges : [...source];
  const used = new Array<boolean>(exchanges.length).fill(false);
  const requests: ReceivedRequest[] = [];
  let next = 0;

  const pick = (method: string, path: string, body: Buffer): number => {
    if (options.order === 'by-turn') {
      const turns = modelTurnsOf(body);
      return turns !== undefined && turns < exchanges.length ? turns : -1;
    }
    if (options.order === 'match') {
      const found = exchanges.findIndex(
        (e, i) =>
          !used[i] &&
          (!e.request || (e.request.method === method && e.request.path.split('?')[0] === path.split('?')[0])),
      );
      return found;
    }
    return next < exchanges.length ? next++ : -1;
  };

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const digest = bodyDigest(body);
      const scripted = options.intercept?.({ method, path, body, bodyDigest: digest });
      if (scripted) {
        if (options.recordRequests !== false)
          requests.push({
            method,
            path,
            headers: req.headers,
            body: body.toString('utf8'),
            bodyDigest: digest,
            served: -2,
          });
        serve(res, scripted, options).catch(() => res.destroy());
        return;
      }
      const index = pick(method, path, body);
      if (options.recordRequests !== false)
        requests.push({
          method,
          path,
          headers: req.headers,
          body: body.toString('utf8'),
          bodyDigest: digest,
          served: index,
        });
      if (index === -1) {
        res.writeHead(500, { 'content-type': 'application/json', 'x-minicode-replay': 'exhausted' });
        res.end(
          JSON.stringify({
            error: { type: 'replay_exhausted', message: `no cassette exchange left for ${method} ${path}` },
          }),
        );
        return;
      }
      used[index] = true;
      serve(res, exchanges[index]!, options).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    remaining: () => used.filter((u) => !u).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
