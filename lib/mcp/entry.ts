/**
 * One `mcpServers` entry as people copy it from another agent's config, read into minicode's
 * own shape. Claude Code, Codex, Gemini CLI and Cursor spell the same meaning differently
 * (`disabled: true` / `enabled = false`, `enabled_tools` / `includeTools`, `tool_timeout_sec` /
 * `timeout` in ms, `httpUrl` / `url` + `type`); each spelling in {@link SPELLINGS} is rewritten
 * to the canonical key before the strict schema checks the entry. A key no table knows is a
 * problem naming the server and the key (with the nearest known key when one is close: a typo
 * such as `excludeTool`), and only that entry is skipped: a silently ignored key would leave a
 * server running that its author turned off or narrowed.
 */
import { z } from 'zod';
import { closestName } from '../did-you-mean.js';
import { HttpServerSchema, McpServerNameSchema, StdioServerSchema, type McpServerConfig } from './config.js';

/** Why one entry cannot be used, for the diagnostic that names it. */
export interface EntryProblem {
  name: string;
  message: string;
  action: string;
}

/** The result of reading one entry. */
export type EntryResult = { ok: true; config: McpServerConfig } | { ok: false; problem: EntryProblem };

/** The canonical keys (minicode's own spelling, which is also Claude Code's and Cursor's for most). */
const CANONICAL = [
  'type',
  'command',
  'args',
  'env',
  'envVars',
  'cwd',
  'sandbox',
  'url',
  'headers',
  'enabled',
  'startupTimeoutMs',
  'toolTimeoutMs',
  'includeTools',
  'excludeTools',
  'trust',
] as const;
type CanonicalKey = (typeof CANONICAL)[number];

/** How another tool's key maps onto a canonical one. */
interface Spelling {
  /** The tools that write it (for the docs table and the messages). */
  from: string;
  to: CanonicalKey;
  /** The value as the canonical key takes it; a value of the wrong type is passed through for the schema to name. */
  convert?: (value: unknown) => unknown;
}

const seconds = (value: unknown): unknown =>
  typeof value === 'number' && Number.isFinite(value) ? Math.round(value * 1000) : value;
const not = (value: unknown): unknown => (typeof value === 'boolean' ? !value : value);
/** Codex's `env_http_headers`: header name -> the variable that holds its value. */
const fromVariables = (value: unknown): unknown =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).map(([h, v]) => [h, typeof v === 'string' ? `\${${v}}` : v]))
    : value;
/** Codex's `bearer_token_env_var`: the variable holding a bearer token. */
const bearer = (value: unknown): unknown =>
  typeof value === 'string' && value !== '' ? { Authorization: `Bearer \${${value}}` } : value;

/** Spellings of other agents' configs, each rewritten to the canonical key. One source: docs/mcp.md's table follows it (a test keeps them in step). */
export const SPELLINGS: Readonly<Record<string, Spelling>> = {
  disabled: { from: 'Cursor, Cline', to: 'enabled', convert: not },
  enabled_tools: { from: 'Codex', to: 'includeTools' },
  disabled_tools: { from: 'Codex', to: 'excludeTools' },
  tool_timeout_sec: { from: 'Codex', to: 'toolTimeoutMs', convert: seconds },
  timeout: { from: 'Gemini CLI (milliseconds)', to: 'toolTimeoutMs' },
  startup_timeout_sec: { from: 'Codex', to: 'startupTimeoutMs', convert: seconds },
  startup_timeout_ms: { from: 'Codex', to: 'startupTimeoutMs' },
  env_vars: { from: 'Codex', to: 'envVars' },
  http_headers: { from: 'Codex', to: 'headers' },
  env_http_headers: { from: 'Codex', to: 'headers', convert: fromVariables },
  bearer_token_env_var: { from: 'Codex', to: 'headers', convert: bearer },
  httpUrl: { from: 'Gemini CLI (Streamable HTTP)', to: 'url' },
  serverUrl: { from: 'Windsurf', to: 'url' },
  transportType: { from: 'Cline', to: 'type' },
};

/** Keys other agents document that minicode reads but does not act on: accepted, not an error. */
const INFORMATIONAL = new Set(['description']);

/** Keys other agents document that minicode cannot honour, with what to do instead. */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  headersHelper: 'minicode does not run header helper commands; put the header in "headers" with ${VAR}',
  envFile: 'minicode does not read env files; list the variables in "env" (values may be ${VAR})',
  autoApprove: 'list the tools as mcp__SERVER__TOOL (or mcp__SERVER__*) in approval.allowTools with approval mode auto',
  alwaysAllow: 'list the tools as mcp__SERVER__TOOL (or mcp__SERVER__*) in approval.allowTools with approval mode auto',
  authProviderType: 'Google credential providers are not supported; pass a token in "headers"',
  targetAudience: 'Google credential providers are not supported; pass a token in "headers"',
  targetServiceAccount: 'Google credential providers are not supported; pass a token in "headers"',
};

/** Spellings of `type` that mean Streamable HTTP. */
const HTTP_TYPES: Readonly<Record<string, string>> = {
  streamableHttp: 'http',
  'streamable-http': 'http',
  streamable_http: 'http',
};

/** The known key `key` is probably a typo of, if one is close. */
function nearest(key: string): string | undefined {
  return closestName(key, [...CANONICAL, ...Object.keys(SPELLINGS), ...INFORMATIONAL]);
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Read one entry: every spelling rewritten to its canonical key, then checked by the strict
 * schema of its kind (stdio when it has `command`, HTTP when it has `url`). The problem's
 * message names the key as the user wrote it.
 */
export function parseServerEntry(name: string, raw: unknown): EntryResult {
  const fail = (message: string, action = `fix or remove mcpServers.${name} (see docs/mcp.md)`): EntryResult => ({
    ok: false,
    problem: { name, message: `mcpServers.${name}: ${message}; this server is skipped`, action },
  });
  const checkedName = McpServerNameSchema.safeParse(name);
  if (!checkedName.success)
    return fail(`invalid server name: ${checkedName.error.issues[0]!.message}`, 'rename the entry');
  if (!isRecord(raw)) return fail('an entry is an object such as {"command": ...} or {"url": ...}');
  const canonical: Record<string, unknown> = {};
  /** The key each canonical key was written as, for messages. */
  const writtenAs = new Map<string, string>();
  for (const [key, value] of Object.entries(raw)) {
    if (INFORMATIONAL.has(key)) continue;
    if (key in UNSUPPORTED) return fail(`"${key}" is not supported`, UNSUPPORTED[key]!);
    const spelling = SPELLINGS[key];
    const to: string | undefined = spelling
      ? spelling.to
      : (CANONICAL as readonly string[]).includes(key)
        ? key
        : undefined;
    if (to === undefined) {
      const near = nearest(key);
      return fail(
        `unknown key "${key}"${near ? ` (did you mean "${near}"?)` : ''}`,
        near ? `rename "${key}" to "${near}"` : `remove "${key}" from mcpServers.${name}`,
      );
    }
    const converted = spelling?.convert ? spelling.convert(value) : value;
    const previous = writtenAs.get(to);
    if (previous !== undefined) {
      // Header maps of several spellings add up, unless they set one header twice.
      if (to === 'headers' && isRecord(canonical.headers) && isRecord(converted)) {
        const seen = new Set(Object.keys(canonical.headers).map((h) => h.toLowerCase()));
        const twice = Object.keys(converted).find((h) => seen.has(h.toLowerCase()));
        if (twice === undefined) {
          canonical.headers = { ...canonical.headers, ...converted };
          continue;
        }
        return fail(`"${key}" and "${previous}" both set the header ${twice}`);
      }
      return fail(`"${key}" and "${previous}" say the same thing; keep one`);
    }
    writtenAs.set(to, key);
    canonical[to] = converted;
  }
  if (typeof canonical.type === 'string' && canonical.type in HTTP_TYPES) canonical.type = HTTP_TYPES[canonical.type];
  // Gemini's `httpUrl` is Streamable HTTP only (its `url` is SSE, which the untyped fallback also finds).
  if (writtenAs.get('url') === 'httpUrl' && canonical.type === undefined) canonical.type = 'http';
  const hasCommand = 'command' in canonical;
  const hasUrl = 'url' in canonical;
  if (hasCommand && hasUrl)
    return fail(
      `has both "${writtenAs.get('command')}" and "${writtenAs.get('url')}"; a server is a command (stdio) or a URL`,
    );
  if (!hasCommand && !hasUrl) return fail('needs "command" (a stdio server) or "url" (an HTTP server)');
  const schema: z.ZodType = hasCommand ? StdioServerSchema : HttpServerSchema;
  const parsed = schema.safeParse(canonical);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const [head, ...rest] = issue.path.map(String);
    const where = head === undefined ? '(entry)' : [writtenAs.get(head) ?? head, ...rest].join('.');
    const kind = hasCommand ? 'a stdio server' : 'an HTTP server';
    return fail(
      issue.code === 'unrecognized_keys'
        ? `${issue.keys.map((k) => `"${writtenAs.get(k) ?? k}"`).join(', ')} does not apply to ${kind}`
        : `${where}: ${issue.message}`,
    );
  }
  return { ok: true, config: parsed.data as McpServerConfig };
}
