/**
 * `minicode mcp add/add-json/remove`: edit `mcpServers` in the user config file (or, with
 * `--scope project`, the project's `.mcp.json`), keeping every other key as it is. The new entry
 * is read as a run reads it (lib/mcp/entry.ts, other agents' spellings included) before anything
 * is written, and the file is replaced atomically (write beside it, then rename) so a crash never
 * leaves half a config.
 */
import fs from 'node:fs';
import { replaceFile } from '../private-files.js';
import path from 'node:path';
import { readConfigJson } from '../config-files.js';
import { MinicodeError } from '../errors.js';
import type { McpServerConfig } from './config.js';
import { parseServerEntry } from './entry.js';

function readRaw(file: string): Record<string, unknown> {
  // Read as every run reads the config; an absent file is an empty one.
  const source = readConfigJson(file);
  if (!source) return {};
  const raw: unknown = source.raw;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw new MinicodeError('MINICODE_E_CONFIG_INVALID', `config ${file} is not a JSON object`, {
      action: `fix ${file}`,
    });
  return raw as Record<string, unknown>;
}

/** Replace `file` atomically; a new file gets `mode` (an existing one keeps its own). */
function writeAtomic(file: string, value: Record<string, unknown>, mode = 0o600): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let keep = mode;
  try {
    keep = fs.statSync(file).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  replaceFile(file, `${JSON.stringify(value, null, 2)}\n`, keep);
}

function serversOf(raw: Record<string, unknown>): Record<string, unknown> {
  const servers = raw.mcpServers;
  return servers && typeof servers === 'object' && !Array.isArray(servers)
    ? { ...(servers as Record<string, unknown>) }
    : {};
}

/**
 * Add `name` to the config `file`, in minicode's own spelling (an entry written in another
 * agent's is read first); an entry a run could not use is a usage error, and so is an existing
 * name unless `replace`. `mode`: the permissions of a new file (default 0600).
 */
export function addServer(
  file: string,
  name: string,
  entry: unknown,
  options: { replace?: boolean; mode?: number } = {},
): McpServerConfig {
  const parsed = parseServerEntry(name, entry);
  if (!parsed.ok)
    throw new MinicodeError('MINICODE_E_USAGE', parsed.problem.message.replace(/; this server is skipped$/, ''), {
      action: parsed.problem.action,
    });
  const raw = readRaw(file);
  const servers = serversOf(raw);
  if (name in servers && !options.replace)
    throw new MinicodeError('MINICODE_E_USAGE', `MCP server ${name} already exists in ${file}`, {
      action: `pass --replace, or run minicode mcp remove ${name} first`,
    });
  servers[name] = parsed.config;
  writeAtomic(file, { ...raw, mcpServers: servers }, options.mode);
  return parsed.config;
}

/** Remove `name` from the user config; a name that is not there is `MINICODE_E_MCP_NOT_FOUND`. */
export function removeServer(file: string, name: string): void {
  const raw = readRaw(file);
  const servers = serversOf(raw);
  if (!(name in servers)) {
    const known = Object.keys(servers);
    throw new MinicodeError('MINICODE_E_MCP_NOT_FOUND', `no MCP server named ${name} in ${file}`, {
      action: known.length > 0 ? `known servers: ${known.join(', ')}` : 'add one with minicode mcp add',
    });
  }
  delete servers[name];
  const next: Record<string, unknown> = { ...raw, mcpServers: servers };
  if (Object.keys(servers).length === 0) delete next.mcpServers;
  writeAtomic(file, next);
}
