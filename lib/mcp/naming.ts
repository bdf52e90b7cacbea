/**
 * Provider-facing names of MCP tools: `mcp__<server>__<tool>`, characters outside
 * `[A-Za-z0-9_-]` replaced by `_`, at most 64 characters (the strictest provider limit). A name
 * that is too long, or that would collide with one already taken, is cut and given a short hash
 * of the original pair, so two different tools never share a name.
 */
import { createHash } from 'node:crypto';
import { MCP_PREFIX, sanitizeNamePart } from '../policy/mcp-names.js';

/** The longest tool name every provider accepts. */
export const MAX_TOOL_NAME = 64;

function shortHash(server: string, tool: string, salt: number): string {
  return createHash('sha256').update(`${server}\u0000${tool}\u0000${salt}`).digest('hex').slice(0, 8);
}

/**
 * The name of `tool` of `server`, unique within `taken` (which it is added to). Deterministic:
 * the same servers and tools in the same order give the same names.
 */
export function mcpToolName(server: string, tool: string, taken: Set<string>): string {
  const plain = `${MCP_PREFIX}${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  if (plain.length <= MAX_TOOL_NAME && !taken.has(plain)) {
    taken.add(plain);
    return plain;
  }
  for (let salt = 0; ; salt++) {
    const suffix = `_${shortHash(server, tool, salt)}`;
    const name = plain.slice(0, MAX_TOOL_NAME - suffix.length) + suffix;
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}
