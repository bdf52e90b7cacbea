/**
 * The `mcpServers` section of a config file, in the shape users already keep in `.mcp.json`
 * (`{"NAME": {"command", "args", "env", "cwd"} | {"url", "headers"}}`), plus minicode's own
 * optional fields. `${VAR}` in `env` and `headers` values expands from minicode's environment,
 * so a config can name a credential without holding it.
 */
import { z } from 'zod';
import { MAX_TIMER_MS } from '../control/timers.js';
import { SANDBOX_MODES } from '../sandbox/settings.js';
import { definedOnly } from '../defined-only.js';

/** Start-up deadline of one server when its config gives none: 10 s. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 10_000;
/** Deadline of one tool call when its server's config gives none (progress extends it): 60 s. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

const common = {
  /** False keeps the entry in the file but does not start it. Default true. */
  enabled: z.boolean().optional(),
  startupTimeoutMs: z.number().int().positive().max(MAX_TIMER_MS).optional(),
  toolTimeoutMs: z.number().int().positive().max(MAX_TIMER_MS).optional(),
  /** Only these tools (the server's own names); default all. */
  includeTools: z.array(z.string().min(1)).optional(),
  /** Never these tools (the server's own names); applied after `includeTools`. */
  excludeTools: z.array(z.string().min(1)).optional(),
};

/** A server minicode starts as a subprocess and talks to over stdin/stdout. */
export const StdioServerSchema = z.looseObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  /** The server's own sandbox mode; default `read-only` (no workspace write) when the run is sandboxed. */
  sandbox: z.enum(SANDBOX_MODES).optional(),
  ...common,
});

/** A server reached over HTTP: Streamable HTTP, or the older SSE transport (`type: "sse"`). */
export const HttpServerSchema = z.looseObject({
  type: z.enum(['http', 'streamable-http', 'sse']).optional(),
  url: z.string().url(),
  headers: z.record(z.string(), z.string()).optional(),
  ...common,
});

/** One entry of `mcpServers`. */
export const McpServerSchema = z.union([StdioServerSchema, HttpServerSchema]);
/** A validated `mcpServers` entry. */
export type McpServerConfig = z.infer<typeof McpServerSchema>;
/** A stdio entry. */
export type StdioServerConfig = z.infer<typeof StdioServerSchema>;
/** An HTTP entry. */
export type HttpServerConfig = z.infer<typeof HttpServerSchema>;

/** Server names: what `mcp__<server>__<tool>` and the CLI can carry. */
export const McpServerNameSchema = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'server names use letters, digits, "_", "-" and "." (at most 64)');

/** The `mcpServers` map. */
export const McpServersSchema = z.record(McpServerNameSchema, McpServerSchema);

/** True for an entry started as a subprocess. */
export function isStdioServer(config: McpServerConfig): config is StdioServerConfig {
  return typeof (config as { command?: unknown }).command === 'string';
}

/** A server as the client starts it: name, config with `${VAR}` expanded, and its deadlines. */
export interface ResolvedServer {
  name: string;
  config: McpServerConfig;
  startupTimeoutMs: number;
  toolTimeoutMs: number;
  /** Where the entry came from (`user`, `local`, `acp`). */
  origin: string;
}

/**
 * Expand `${VAR}` (and `${VAR:-default}`) from `env`; an unset variable without a default
 * expands to the empty string and is reported in `missing`, so the caller can say which one.
 */
export function expandVariables(value: string, env: NodeJS.ProcessEnv, missing: string[] = []): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_all, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return '';
  });
}

function expandRecord(record: Record<string, string> | undefined, env: NodeJS.ProcessEnv, missing: string[]): Record<string, string> | undefined {
  if (!record) return undefined;
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expandVariables(v, env, missing)]));
}

/**
 * The enabled servers of a `mcpServers` map, with `${VAR}` expanded in `env` and `headers` and
 * the default deadlines filled in. `missing` collects variables that were referenced but unset.
 */
export function resolveServers(servers: Record<string, McpServerConfig> | undefined, env: NodeJS.ProcessEnv, origin: string, missing: string[] = []): ResolvedServer[] {
  const out: ResolvedServer[] = [];
  for (const [name, config] of Object.entries(servers ?? {})) {
    if (config.enabled === false) continue;
    const expanded: McpServerConfig = isStdioServer(config)
      ? definedOnly({ ...config, env: config.env ? expandRecord(config.env, env, missing)! : undefined })
      : definedOnly({ ...config, headers: config.headers ? expandRecord(config.headers, env, missing)! : undefined });
    out.push({
      name,
      config: expanded,
      startupTimeoutMs: config.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
      toolTimeoutMs: config.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      origin,
    });
  }
  return out;
}
