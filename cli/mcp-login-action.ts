/**
 * `minicode mcp login NAME` and `mcp logout NAME`: the OAuth login of a config's URL server
 * (lib/mcp/oauth-login.ts), kept beside the user config and used by every run from then on.
 */
import path from 'node:path';
import { loadConfig } from '../lib/config-files.js';
import { MinicodeError } from '../lib/errors.js';
import { isStdioServer } from '../lib/mcp/config.js';
import { resolveServers } from '../lib/mcp/resolve.js';
import { oauthFile, removeOAuthRecord } from '../lib/mcp/oauth-store.js';
import { neutralise } from '../lib/safe-text.js';
import { configuredServers, fail, positiveMs } from './mcp-action.js';

/** Flags of `minicode mcp login`. */
export interface McpLoginFlags {
  /** False with `--no-browser`. */
  browser?: boolean;
  timeout?: string;
  allowLocalConfig?: boolean;
  cwd?: string;
}

/** How long a login waits for the browser when `--timeout` is not given: 5 minutes. */
const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;

/** `mcp login NAME`: 0 when logged in, 1 when the login failed, 130 when cancelled. */
export async function mcpLoginAction(name: string, flags: McpLoginFlags): Promise<number> {
  const controller = new AbortController();
  const onSigint = (): void => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    const timeoutMs = positiveMs(flags.timeout, '--timeout') ?? DEFAULT_LOGIN_TIMEOUT_MS;
    const cwd = path.resolve(flags.cwd ?? process.cwd());
    const loaded = await loadConfig({ cwd, allowLocalConfig: flags.allowLocalConfig === true });
    const servers = configuredServers(loaded, name, flags.allowLocalConfig === true);
    const list = resolveServers({ [name]: servers[name] }, process.env, 'config', loaded.mcpServerFiles ?? {});
    const problem = list.problems[0];
    if (problem) throw new MinicodeError('MINICODE_E_CONFIG_INVALID', problem.message, { action: problem.action });
    const server = list.servers[0];
    if (!server)
      throw new MinicodeError('MINICODE_E_USAGE', `MCP server ${name} is turned off in the config`, {
        action: `turn it on (remove "enabled": false or "disabled": true) to log in to it`,
      });
    if (isStdioServer(server.config))
      throw new MinicodeError(
        'MINICODE_E_USAGE',
        `MCP server ${name} is a command (stdio); a login is for URL servers`,
        {
          action: 'give a stdio server its credentials in "env"',
        },
      );
    const { loginToServer } = await import('../lib/mcp/oauth-login.js');
    const { file } = await loginToServer({
      name,
      url: server.config.url,
      env: process.env,
      openBrowser: flags.browser !== false,
      timeoutMs,
      signal: controller.signal,
      onAuthorizationUrl: (url, browserStarted) => {
        process.stderr.write(
          `${browserStarted ? 'A browser was opened on this URL; if it did not appear, open it yourself' : 'Open this URL in a browser'} to log in to ${name}:\n\n  ${neutralise(url)}\n\nWaiting for the answer (up to ${Math.round(timeoutMs / 1000)} s; Ctrl+C to stop)...\n`,
        );
      },
    });
    process.stderr.write(`logged in to MCP server ${name}; the login is kept in ${file} (mode 0600)\n`);
    return 0;
  } catch (error) {
    return fail(error);
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** `mcp logout NAME`: forget the stored login; 0 whether or not there was one. */
export function mcpLogoutAction(name: string): number {
  try {
    const file = oauthFile(process.env, name);
    const had = removeOAuthRecord(file);
    process.stderr.write(had ? `logged out of MCP server ${name} (${file} removed)\n` : `no login kept for ${name}\n`);
    return 0;
  } catch (error) {
    return fail(error);
  }
}
