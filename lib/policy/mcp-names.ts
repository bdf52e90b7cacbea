/**
 * The name syntax of MCP tools as the approval policy reads it: every MCP tool is named
 * `mcp__<server>__<tool>`, and `approval.allowTools` may allow a whole server as
 * `mcp__<server>__*`. The MCP client names its tools with these (lib/mcp/naming.ts); the policy
 * matches allowlists against them without depending on the client.
 */

/** Every MCP tool name starts with this. */
export const MCP_PREFIX = 'mcp__';

/** `s` with every character outside `[A-Za-z0-9_-]` replaced by `_`. */
export function sanitizeNamePart(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The `mcp__<server>__*` pattern that allows every tool of a server in `approval.allowTools`. */
export function serverWildcard(server: string): string {
  return `${MCP_PREFIX}${sanitizeNamePart(server)}__*`;
}
