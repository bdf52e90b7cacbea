/**
 * The allowlisting proxy of `sandbox.network.allow`: an HTTP proxy minicode runs outside the
 * sandbox, one per sandboxed command, through which the command reaches the hosts the config
 * names and nothing else. It answers HTTP `CONNECT host:port` (a tunnel: HTTPS and anything a
 * client tunnels) and plain HTTP forward requests (`GET http://host/...`); a host not on the
 * list gets `403 Forbidden` and is remembered, so the tool result can name it.
 *
 * Hazards answered here:
 * - the host is taken from the request line (the CONNECT authority, the absolute URI), never
 *   from a `Host` header the client could set apart from where the connection goes;
 * - names compare lower-cased without a trailing dot (`GitHub.com.` is `github.com`);
 *   `*.example.com` matches names below `example.com`, not `example.com` itself;
 * - a request that is not absolute-form (`GET /path`, sent to the proxy as if it were the
 *   server) has no host to check: 400;
 * - hop-by-hop headers (`Proxy-Connection`, `Proxy-Authorization`, those named by
 *   `Connection`) are not forwarded;
 * - every socket error ends both sides of that one connection, never the proxy;
 * - names are resolved here, on the host: the sandbox has no resolver of its own.
 *
 * One proxy per command: its socket is bound into that command's sandbox alone, and the hosts
 * it refused are that command's.
 */
import http from 'node:http';
import net from 'node:net';

/** A host pattern of `sandbox.network.allow`: a name, or `*.` and a name (its subdomains). */
export const HOST_PATTERN = /^(\*\.)?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$/;

/** `host` as compared: lower case, no trailing dot, IPv6 brackets removed. */
function normalHost(host: string): string {
  return host
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
}

/** True when `host` is one of `allow` (exact names, or `*.name` for any name below `name`). */
export function hostAllowed(host: string, allow: readonly string[]): boolean {
  const name = normalHost(host);
  return allow.some((pattern) => {
    const p = normalHost(pattern);
    return p.startsWith('*.') ? name.endsWith(p.slice(1)) && name.length > p.length - 1 : name === p;
  });
}

/** Where the proxy listens: a unix socket path (bwrap binds it into the sandbox) or a loopback TCP port (Seatbelt). */
export type ProxyListen = { path: string } | { port: 0 };

/** A running proxy. */
export interface AllowlistProxy {
  /** The socket path, or `127.0.0.1:PORT`. */
  address: string;
  /** The hosts refused so far, each once, in order. */
  refused(): string[];
  /** Stop listening and end every open connection. */
  close(): void;
}

/** Headers a proxy must not pass on (RFC 9110 7.6.1), besides those named by `Connection`. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** `host:port` of a CONNECT request line; undefined when malformed. */
function connectTarget(authority: string | undefined): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority ?? '');
  if (!match) return undefined;
  const port = Number(match[2]);
  return port > 0 && port < 65536 ? { host: normalHost(match[1]!), port } : undefined;
}

/** The response line and a short body for a refusal, written on a raw socket (CONNECT) or a response. */
function refusalText(host: string): string {
  return `minicode sandbox: ${host} is not in sandbox.network.allow\n`;
}

/** Start a proxy that lets through `allow` only, listening at `listen`. */
export function startAllowlistProxy(allow: readonly string[], listen: ProxyListen): AllowlistProxy {
  const refused: string[] = [];
  const refuse = (host: string) => {
    if (!refused.includes(host)) refused.push(host);
  };
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const server = http.createServer((request, response) => {
    let target: URL;
    try {
      target = new URL(request.url ?? '');
    } catch {
      // Not absolute-form: a request for the proxy itself, which serves nothing.
      response
        .writeHead(400, { 'content-type': 'text/plain' })
        .end('minicode sandbox proxy: absolute-form http:// requests and CONNECT only\n');
      return;
    }
    const host = normalHost(target.hostname);
    if (target.protocol !== 'http:' || !hostAllowed(host, allow)) {
      refuse(host);
      response.writeHead(403, { 'content-type': 'text/plain' }).end(refusalText(host));
      return;
    }
    const named = new Set((request.headers.connection ?? '').split(',').map((h) => h.trim().toLowerCase()));
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(request.headers))
      if (!HOP_BY_HOP.has(name) && !named.has(name) && value !== undefined) headers[name] = value;
    const upstream = http.request({
      host: target.hostname,
      port: target.port || 80,
      method: request.method,
      path: `${target.pathname}${target.search}`,
      headers,
    });
    upstream.on('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', (error) => {
      if (!response.headersSent)
        response
          .writeHead(502, { 'content-type': 'text/plain' })
          .end(`minicode sandbox proxy: ${host}: ${error.message}\n`);
      else response.destroy();
    });
    request.pipe(upstream);
  });
  server.on('connection', track);
  server.on('connect', (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const target = connectTarget(request.url);
    client.on('error', () => client.destroy());
    if (!target) {
      client.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
      return;
    }
    if (!hostAllowed(target.host, allow)) {
      refuse(target.host);
      const body = refusalText(target.host);
      client.end(
        `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      return;
    }
    const upstream = net.connect({ host: target.host, port: target.port });
    track(upstream);
    upstream.on('error', (error) => {
      if (client.writable && upstream.bytesRead === 0)
        client.end(
          `HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\nminicode sandbox proxy: ${target.host}: ${error.message}\n`,
        );
      else client.destroy();
    });
    client.on('close', () => upstream.destroy());
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
  });
  // Listening is bound synchronously, so a client started right after can connect.
  if ('path' in listen) server.listen(listen.path);
  else server.listen(0, '127.0.0.1');
  const bound = server.address();
  const address =
    typeof bound === 'string'
      ? bound
      : bound
        ? `127.0.0.1:${bound.port}`
        : 'path' in listen
          ? listen.path
          : '127.0.0.1';
  return {
    address,
    refused: () => [...refused],
    close: () => {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}
