/**
 * The `mcpServers` section of a config file, in the shape users already keep in `.mcp.json`
 * (`{"NAME": {"command", "args", "env", "cwd"} | {"url", "headers"}}`), plus minicode's own
 * optional fields. Other agents' spellings are read into this shape by lib/mcp/entry.ts, one
 * entry at a time, so one bad entry skips that server only. `${VAR}` in `command`, `args`, `env`,
 * `url` and `headers` expands from minicode's environment when the server starts, so a config
 * can name a credential without holding it.
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
  /** True: the server's tools run without asking, except in `read-only` mode (Gemini CLI's `trust`). Default false. */
  trust: z.boolean().optional(),
};

/** A variable name, as `env` keys and `envVars` entries are. */
const VARIABLE_NAME = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name');

/** A server minicode starts as a subprocess and talks to over stdin/stdout. */
export const StdioServerSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  /** Variables passed on from minicode's environment when set (Codex's `env_vars`). */
  envVars: z.array(VARIABLE_NAME).optional(),
  cwd: z.string().min(1).optional(),
  /** The server's own sandbox mode; default `read-only` (no workspace write) when the run is sandboxed. */
  sandbox: z.enum(SANDBOX_MODES).optional(),
  ...common,
});

/** A server reached over HTTP: Streamable HTTP, or the older SSE transport (`type: "sse"`). */
export const HttpServerSchema = z.strictObject({
  type: z.enum(['http', 'streamable-http', 'sse']).optional(),
  /** An http(s) URL; checked once `${VAR}`s are expanded. */
  url: z
    .string()
    .min(1)
    .refine((u) => u.includes('${') || isHttpUrl(u), 'an http(s) URL'),
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
export const McpServerNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'server names use letters, digits, "_", "-" and "." (at most 64)');

/**
 * The `mcpServers` map as the config file's schema takes it: an object of entries, each read on
 * its own by lib/mcp/entry.ts when servers start (a bad entry skips that server, not the run).
 */
export const McpServersSchema = z.record(z.string(), z.unknown());

/** True for an absolute http(s) URL. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    // Not a URL at all.
    return false;
  }
}

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
  /** Where the entry came from (`config`, `acp`). */
  origin: string;
  /** The config file that names it, when it came from one. */
  file?: string;
}

/**
 * Expand `${VAR}` and `${VAR:-default}` (Cursor's `${env:VAR}` too) from `env`; an unset variable
 * without a default expands to the empty string and is reported in `missing`, so the caller can
 * say which one.
 */
export function expandVariables(value: string, env: NodeJS.ProcessEnv, missing: string[] = []): string {
  return value.replace(
    /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_all, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      missing.push(name);
      return '';
    },
  );
}

/** A value that is one whole `$VAR` (Gemini CLI's unbraced form), expanded; anything else as it is. */
function expandWhole(value: string, env: NodeJS.ProcessEnv, missing: string[]): string {
  const whole = /^\$([A-Za-z_][A-Za-z0-9_]*)$/.exec(value);
  return whole ? expandVariables(`\${${whole[1]}}`, env, missing) : expandVariables(value, env, missing);
}

function expandRecord(
  record: Record<string, string> | undefined,
  env: NodeJS.ProcessEnv,
  missing: string[],
): Record<string, string> | undefined {
  if (!record) return undefined;
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expandWhole(v, env, missing)]));
}

/** `config` with its `${VAR}`s expanded from `env` (`envVars` become `env` entries); `missing` collects unset names. */
export function expandServer(config: McpServerConfig, env: NodeJS.ProcessEnv, missing: string[] = []): McpServerConfig {
  if (isStdioServer(config)) {
    const passed = Object.fromEntries(
      (config.envVars ?? []).flatMap((n) => (env[n] !== undefined ? [[n, env[n]!]] : [])),
    );
    const own = expandRecord(config.env, env, missing);
    const merged = own || config.envVars ? { ...passed, ...own } : undefined;
    return definedOnly({
      ...config,
      envVars: undefined,
      command: expandVariables(config.command, env, missing),
      args: config.args?.map((a) => expandVariables(a, env, missing)),
      env: merged,
    });
  }
  return definedOnly({
    ...config,
    url: expandVariables(config.url, env, missing),
    headers: expandRecord(config.headers, env, missing),
  });
}
