/**
 * `minicode mcp login NAME`: the MCP authorization flow (OAuth 2.1 authorization code with PKCE,
 * dynamic client registration where the server offers it) through the SDK's `auth()`, with the
 * browser's answer received on a loopback port of 127.0.0.1.
 *
 * The callback listener only accepts `GET /callback` carrying the `state` this login sent: a
 * page that guesses the port cannot end the login with a code of its own, and a wrong state
 * leaves the login waiting rather than failing it. The wait is bounded (`timeoutMs`) and the
 * listener is closed however the login ends.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { MinicodeError } from '../errors.js';
import { neutralise } from '../safe-text.js';
import { oauthFile, readOAuthRecord } from './oauth-store.js';
import { StoredOAuthProvider } from './oauth-provider.js';

/** Options of {@link loginToServer}. */
export interface LoginOptions {
  /** The server's name in the config. */
  name: string;
  /** Its URL, with `${VAR}`s expanded. */
  url: string;
  /** minicode's environment (where the login is kept: `MINICODE_HOME`). */
  env: NodeJS.ProcessEnv;
  /** Try to open the system browser on the authorization URL. */
  openBrowser: boolean;
  /** How long to wait for the browser's answer. */
  timeoutMs: number;
  /** Told the authorization URL (to print) and whether a browser was started on it. */
  onAuthorizationUrl: (url: string, browserStarted: boolean) => void;
  /** Ends the wait early (Ctrl+C). */
  signal?: AbortSignal;
}

const CALLBACK_PATH = '/callback';
const PAGE_DONE = 'minicode: logged in. You can close this tab and go back to the terminal.\n';

function loginError(name: string, message: string, action?: string): MinicodeError {
  return new MinicodeError('MINICODE_E_MCP_AUTH', `login to MCP server ${name} failed: ${message}`, {
    action: action ?? `run minicode mcp login ${name} again`,
  });
}

/** Listen on 127.0.0.1:`port`, or on a free port when that one is taken. */
async function listenLoopback(server: http.Server, port: number): Promise<number> {
  const attempt = (p: number) =>
    new Promise<number>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      server.once('error', onError);
      server.listen(p, '127.0.0.1', () => {
        server.off('error', onError);
        resolve((server.address() as AddressInfo).port);
      });
    });
  if (port === 0) return attempt(0);
  try {
    return await attempt(port);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' && (error as NodeJS.ErrnoException).code !== 'EACCES')
      throw error;
    return attempt(0);
  }
}

/** The loopback port of a registration made by an earlier login, so its redirect URI still matches. */
function previousPort(file: string, url: string): number {
  const record = readOAuthRecord(file);
  if (!record || record.url !== url) return 0;
  const uris = (record.client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  const first = Array.isArray(uris) ? uris[0] : undefined;
  if (typeof first !== 'string') return 0;
  try {
    const u = new URL(first);
    return u.hostname === '127.0.0.1' && u.pathname === CALLBACK_PATH ? Number(u.port) || 0 : 0;
  } catch {
    // A registration of someone else's making: start on a free port.
    return 0;
  }
}

/** Start the system's URL opener, detached; false when there is none to try (no display on Linux). */
function startBrowser(url: string, env: NodeJS.ProcessEnv): boolean {
  let command: string;
  let args: string[];
  if (process.platform === 'darwin') [command, args] = ['open', [url]];
  else if (process.platform === 'win32') [command, args] = ['rundll32', ['url.dll,FileProtocolHandler', url]];
  else if (env.DISPLAY || env.WAYLAND_DISPLAY) [command, args] = ['xdg-open', [url]];
  else return false;
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    // No opener installed: the printed URL is the way in.
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    // spawn throws synchronously only for bad arguments; the printed URL is the way in.
    return false;
  }
}

/** What the callback brought: a code, or the authorization server's refusal. */
type Callback = { code: string } | { error: string };

/** Wait for `GET /callback?state=...` on `server`, answering the browser each time. */
function awaitCallback(server: http.Server, state: string): Promise<Callback> {
  return new Promise((resolve) => {
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      if (url.searchParams.get('state') !== state) {
        res
          .writeHead(400, { 'content-type': 'text/plain' })
          .end('minicode: this answer is not for the login under way\n');
        return;
      }
      const error = url.searchParams.get('error');
      const code = url.searchParams.get('code');
      if (error !== null || !code) {
        const description = url.searchParams.get('error_description');
        res.writeHead(400, { 'content-type': 'text/plain' }).end('minicode: the login was refused\n');
        resolve({ error: `${error ?? 'no code'}${description ? `: ${description}` : ''}`.slice(0, 300) });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end(PAGE_DONE);
      resolve({ code });
    });
  });
}

/** Log in to one server; resolves with the file that keeps the login. Throws `MINICODE_E_MCP_AUTH`. */
export async function loginToServer(options: LoginOptions): Promise<{ file: string }> {
  const { name, url } = options;
  const file = oauthFile(options.env, name);
  const server = http.createServer();
  let timer: NodeJS.Timeout | undefined;
  try {
    const port = await listenLoopback(server, previousPort(file, url));
    const redirectUrl = `http://127.0.0.1:${port}${CALLBACK_PATH}`;
    let browserStarted = false;
    const provider = new StoredOAuthProvider({
      name,
      url,
      file,
      redirectUrl,
      onAuthorizationUrl: (authorizationUrl) => {
        if (options.openBrowser) browserStarted = startBrowser(authorizationUrl.href, options.env);
        options.onAuthorizationUrl(authorizationUrl.href, browserStarted);
      },
    });
    const answer = awaitCallback(server, provider.expectedState);
    let started: Awaited<ReturnType<typeof auth>>;
    try {
      started = await auth(provider, { serverUrl: url });
    } catch (error) {
      throw loginError(
        name,
        `the server offers no login minicode can use (${neutralise(error instanceof Error ? error.message : String(error))})`,
        `check the URL of mcpServers.${name}; a server without OAuth takes a token in "headers"`,
      );
    }
    if (started === 'AUTHORIZED') return { file };
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(loginError(name, `no answer from the browser within ${Math.round(options.timeoutMs / 1000)} s`)),
        options.timeoutMs,
      );
    });
    const aborted = new Promise<never>((_, reject) => {
      const cancelled = () => reject(new MinicodeError('MINICODE_E_ABORTED', `login to MCP server ${name} cancelled`));
      if (options.signal?.aborted) cancelled();
      options.signal?.addEventListener('abort', cancelled, { once: true });
    });
    const callback = await Promise.race([answer, limit, aborted]);
    if ('error' in callback) throw loginError(name, `the authorization server refused: ${neutralise(callback.error)}`);
    try {
      await auth(provider, { serverUrl: url, authorizationCode: callback.code });
    } catch (error) {
      throw loginError(
        name,
        `exchanging the code: ${neutralise(error instanceof Error ? error.message : String(error))}`,
      );
    }
    return { file };
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
