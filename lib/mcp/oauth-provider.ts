/**
 * The SDK's `OAuthClientProvider` over a stored login (lib/mcp/oauth-store.ts). The SDK's
 * `auth()` drives the protocol (discovery, dynamic registration, PKCE, the code exchange, the
 * refresh after a 401); this object only keeps what it is given and says where the browser goes.
 *
 * Two uses, one class:
 * - a login (`redirectUrl` set): no tokens are offered, so `auth()` starts a fresh browser flow
 *   instead of refreshing; the authorization URL goes to `onAuthorizationUrl`;
 * - a run: the stored tokens are sent and refreshed when the server refuses them; a refresh that
 *   fails ends in `McpLoginRequired` instead of a browser flow nobody is there to finish.
 *
 * In a run the file is read again at each `tokens()`, so a token another process refreshed is
 * used, and a refusal only forgets tokens that are still the ones this process sent. A login
 * keeps what it learns in memory and writes it with the tokens, so a login that fails leaves the
 * previous one as it was.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { isStdioServer, type ResolvedServer } from './config.js';
import { oauthFile, readOAuthRecord, writeOAuthRecord, type OAuthRecord } from './oauth-store.js';

/** A run met a server whose stored login can no longer be used (or a login a run cannot start). */
export class McpLoginRequired extends Error {
  override name = 'McpLoginRequired';
}

/** Options of {@link StoredOAuthProvider}. */
export interface StoredOAuthOptions {
  /** The server's name (for messages). */
  name: string;
  /** The server URL the login is for. */
  url: string;
  /** The record's file (`oauthFile`). */
  file: string;
  /** A login's loopback redirect URL; absent in a run. */
  redirectUrl?: string;
  /** A login: where the browser is sent. */
  onAuthorizationUrl?: (url: URL) => void | Promise<void>;
  /** Each access and refresh token as it is read or saved, so output holding one can be masked. */
  onSecret?: (value: string) => void;
}

/** A redirect a run names when its registration lists none (never visited: a run never redirects). */
const RUN_REDIRECT = 'http://127.0.0.1/callback';

/** The stored login of one server, as the SDK's client auth reads and writes it. */
export class StoredOAuthProvider implements OAuthClientProvider {
  readonly #options: StoredOAuthOptions;
  readonly #state = randomBytes(24).toString('base64url');
  #verifier: string | undefined;
  /** The tokens as last read, to tell ours from ones another process saved since. */
  #sent: string | undefined;
  /** A login's record until its tokens arrive. */
  #draft: OAuthRecord | undefined;

  constructor(options: StoredOAuthOptions) {
    this.#options = options;
    if (options.redirectUrl) {
      const { tokens: _old, discovery: _stale, ...kept } = this.#stored();
      this.#draft = kept;
    }
  }

  /** The `state` this login sends; the callback must carry it back. */
  get expectedState(): string {
    return this.#state;
  }

  #stored(): OAuthRecord {
    const stored = readOAuthRecord(this.#options.file);
    // A login made for another URL is not this server's: its tokens are never sent here.
    return stored && stored.url === this.#options.url ? stored : { version: 1, url: this.#options.url };
  }

  #record(): OAuthRecord {
    return this.#draft ?? this.#stored();
  }

  #update(change: (record: OAuthRecord) => OAuthRecord): void {
    const next = change(this.#record());
    if (this.#draft && !next.tokens) this.#draft = next;
    else {
      this.#draft = undefined;
      writeOAuthRecord(this.#options.file, next);
    }
  }

  get redirectUrl(): string {
    if (this.#options.redirectUrl) return this.#options.redirectUrl;
    const uris = (this.#record().client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    return Array.isArray(uris) && typeof uris[0] === 'string' ? uris[0] : RUN_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'minicode',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A public client: nothing in a CLI on someone's machine keeps a client secret secret.
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return this.#state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const client = this.#record().client as OAuthClientInformationMixed | undefined;
    // A login on another loopback port needs a registration naming that port (servers that
    // match redirect URIs exactly); one that names it is reused.
    if (client && this.#options.redirectUrl) {
      const uris = (client as { redirect_uris?: unknown }).redirect_uris;
      if (Array.isArray(uris) && !uris.includes(this.#options.redirectUrl)) return undefined;
    }
    return client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    if (!this.#options.redirectUrl) {
      const stored = this.#record().client as { client_id?: unknown } | undefined;
      // A run keeps its registration bound (the SDK adds the issuer), but never registers anew.
      if (stored?.client_id !== client.client_id) throw this.#loginRequired();
    }
    this.#update((r) => ({ ...r, client: { ...client } }));
  }

  tokens(): OAuthTokens | undefined {
    if (this.#options.redirectUrl) return undefined;
    const tokens = this.#record().tokens as OAuthTokens | undefined;
    this.#sent = tokens ? JSON.stringify(tokens) : undefined;
    if (tokens) this.#secrets(tokens);
    return tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#secrets(tokens);
    this.#update((r) => ({ ...r, tokens: { ...tokens } }));
    this.#sent = JSON.stringify(tokens);
  }

  redirectToAuthorization(authorizationUrl: URL): void | Promise<void> {
    if (!this.#options.onAuthorizationUrl) throw this.#loginRequired();
    return this.#options.onAuthorizationUrl(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error('no PKCE verifier: the login did not start here');
    return this.#verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    // A login discovers afresh: the server may have moved its authorization server since.
    if (this.#options.redirectUrl) return undefined;
    return this.#record().discovery as OAuthDiscoveryState | undefined;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#update((r) => ({ ...r, discovery: JSON.parse(JSON.stringify(state)) as Record<string, unknown> }));
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') {
      this.#verifier = undefined;
      return;
    }
    this.#update((r) => {
      const next: OAuthRecord = { ...r };
      if (scope === 'all' || scope === 'client') delete next.client;
      if (scope === 'all' || scope === 'discovery') delete next.discovery;
      // Tokens another process saved since this one read them are newer than the refused ones.
      if ((scope === 'all' || scope === 'tokens') && JSON.stringify(r.tokens) === this.#sent) delete next.tokens;
      return next;
    });
  }

  #secrets(tokens: OAuthTokens): void {
    for (const value of [tokens.access_token, tokens.refresh_token, tokens.id_token])
      if (value) this.#options.onSecret?.(value);
  }

  #loginRequired(): McpLoginRequired {
    return new McpLoginRequired(`the login to ${this.#options.name} has expired or was refused`);
  }
}

/**
 * The stored login of a config's URL server, when `minicode mcp login` made one for its URL and
 * the entry sends no `Authorization` header of its own (a header the user wrote wins); a
 * client's (ACP) server never gets one.
 */
export function storedLogin(
  server: ResolvedServer,
  env: NodeJS.ProcessEnv,
  onSecret: (value: string) => void,
): StoredOAuthProvider | undefined {
  const config = server.config;
  if (server.origin !== 'config' || isStdioServer(config)) return undefined;
  const file = oauthFile(env, server.name);
  if (Object.keys(config.headers ?? {}).some((h) => h.toLowerCase() === 'authorization')) return undefined;
  const record = readOAuthRecord(file);
  if (!record || record.url !== config.url || !record.tokens) return undefined;
  return new StoredOAuthProvider({ name: server.name, url: config.url, file, onSecret });
}
