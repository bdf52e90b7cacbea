/**
 * An OAuth-protected MCP server on loopback, built for the tests from the SDK's server parts:
 * `mcpAuthRouter` (authorization server metadata, dynamic client registration, the authorize
 * and token endpoints, with PKCE checked by the SDK), `requireBearerAuth` in front of a stateless
 * Streamable HTTP MCP server, and our own in-memory provider. The provider approves every
 * authorization at once (the person at the browser says yes), issues opaque random tokens that
 * match no secret rule (so a test proves they are masked by value), rotates refresh tokens, and
 * can expire or revoke every token on demand. It counts what it was asked, so a test can tell a
 * refresh from a new login.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Response } from 'express';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** What the server was asked, for assertions. */
export interface OAuthCounts {
  registrations: number;
  authorizations: number;
  codeExchanges: number;
  refreshes: number;
  /** MCP requests refused with 401. */
  refused: number;
  /** MCP requests served. */
  served: number;
}

/** The running server. */
export interface OAuthMcpServer {
  /** The MCP endpoint (`http://127.0.0.1:PORT/mcp`). */
  url: string;
  counts: OAuthCounts;
  /** Every access and refresh token issued so far. */
  issued(): string[];
  /** Every access token stops working now (as if its lifetime ran out); refresh tokens still work. */
  expireAccessTokens(): void;
  /** Every token, access and refresh, stops working now. */
  revokeAll(): void;
  close(): Promise<void>;
}

const token = (prefix: string): string => `${prefix}${randomBytes(24).toString('hex')}`;

class InMemoryClients implements OAuthRegisteredClientsStore {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  constructor(private readonly counts: OAuthCounts) {}
  getClient(id: string): OAuthClientInformationFull | undefined {
    return this.clients.get(id);
  }
  registerClient(client: OAuthClientInformationFull): OAuthClientInformationFull {
    this.counts.registrations++;
    this.clients.set(client.client_id, client);
    return client;
  }
}

interface AccessToken {
  clientId: string;
  expiresAt: number;
  resource?: URL;
}

class InMemoryAuthorization implements OAuthServerProvider {
  readonly clientsStore: InMemoryClients;
  readonly codes = new Map<string, { client: OAuthClientInformationFull; params: AuthorizationParams }>();
  readonly access = new Map<string, AccessToken>();
  readonly refresh = new Map<string, { clientId: string; resource?: URL }>();
  readonly all: string[] = [];

  constructor(private readonly counts: OAuthCounts) {
    this.clientsStore = new InMemoryClients(counts);
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    this.counts.authorizations++;
    const code = token('code_');
    this.codes.set(code, { client, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.redirect(target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const found = this.codes.get(code);
    if (!found) throw new InvalidGrantError('unknown authorization code');
    return found.params.codeChallenge;
  }

  #issue(clientId: string, resource: URL | undefined): OAuthTokens {
    const accessToken = token('mcpat_');
    const refreshToken = token('mcprt_');
    this.access.set(accessToken, { clientId, expiresAt: Date.now() + 3_600_000, ...(resource ? { resource } : {}) });
    this.refresh.set(refreshToken, { clientId, ...(resource ? { resource } : {}) });
    this.all.push(accessToken, refreshToken);
    return { access_token: accessToken, token_type: 'bearer', expires_in: 3600, refresh_token: refreshToken };
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const found = this.codes.get(code);
    if (!found || found.client.client_id !== client.client_id)
      throw new InvalidGrantError('unknown authorization code');
    this.codes.delete(code);
    this.counts.codeExchanges++;
    return this.#issue(client.client_id, found.params.resource);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const found = this.refresh.get(refreshToken);
    if (!found || found.clientId !== client.client_id) throw new InvalidGrantError('unknown refresh token');
    // Rotation: a refresh token is good once.
    this.refresh.delete(refreshToken);
    this.counts.refreshes++;
    return this.#issue(client.client_id, found.resource);
  }

  async verifyAccessToken(accessToken: string): Promise<AuthInfo> {
    const found = this.access.get(accessToken);
    if (!found || found.expiresAt <= Date.now()) throw new InvalidTokenError('the token expired or is unknown');
    return {
      token: accessToken,
      clientId: found.clientId,
      scopes: [],
      expiresAt: Math.floor(found.expiresAt / 1000),
      ...(found.resource ? { resource: found.resource } : {}),
    };
  }
}

/** An MCP server (one per request: the transport is stateless) with an echo tool and one that echoes the bearer token back. */
function mcpServerFor(bearer: string): McpServer {
  const server = new McpServer({ name: 'oauth-test', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echo the text back', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
  );
  // A careless server that puts the caller's credential in its answer.
  server.registerTool('whoami', { description: 'Say which token called' }, async () => ({
    content: [{ type: 'text', text: `called with ${bearer}` }],
  }));
  return server;
}

/** Start the server on a free loopback port. */
export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const counts: OAuthCounts = {
    registrations: 0,
    authorizations: 0,
    codeExchanges: 0,
    refreshes: 0,
    refused: 0,
    served: 0,
  };
  const provider = new InMemoryAuthorization(counts);
  const app = express();
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcpUrl = new URL('/mcp', origin);
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(origin),
      resourceServerUrl: mcpUrl,
      scopesSupported: ['mcp'],
    }),
  );
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
  });
  const counted: express.RequestHandler = (_req, res, next) => {
    res.on('finish', () => {
      if (res.statusCode === 401) counts.refused++;
    });
    next();
  };
  app.post('/mcp', counted, bearer, express.json(), async (req, res) => {
    counts.served++;
    const mcp = mcpServerFor(req.auth!.token);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  // Stateless: no standalone SSE stream and no session to end.
  app.get('/mcp', counted, bearer, (_req, res) => void res.status(405).end());
  app.delete('/mcp', counted, bearer, (_req, res) => void res.status(405).end());
  return {
    url: mcpUrl.href,
    counts,
    issued: () => [...provider.all],
    expireAccessTokens() {
      for (const t of provider.access.values()) t.expiresAt = 0;
    },
    revokeAll() {
      provider.access.clear();
      provider.refresh.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
