/**
 * `minicode mcp add/remove`: edit `mcpServers` in the user config file, keeping every other key
 * as it is. The new entry is validated before anything is written, and the file is replaced
 * atomically (write beside it, then rename) so a crash never leaves half a config.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readConfigJson } from '../config-files.js';
import { MinicodeError } from '../errors.js';
import { McpServerNameSchema, McpServerSchema, type McpServerConfig } from './config.js';

function readRaw(file: string): Record<string, unknown> {
  // Read as every run reads the config; an absent file is an empty one.
  const source = readConfigJson(file);
  if (!source) return {};
  const raw: unknown = source.raw;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new MinicodeError('MINICODE_E_CONFIG_INVALID', `config ${file} is not a JSON object`, { action: `fix ${file}` });
  return raw as Record<string, unknown>;
}

function writeAtomic(file: string, value: Record<string, unknown>): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}

function serversOf(raw: Record<string, unknown>): Record<string, unknown> {
  const servers = raw.mcpServers;
  return servers && typeof servers === 'object' && !Array.isArray(servers) ? { ...(servers as Record<string, unknown>) } : {};
}

/** Add `name` to the user config; an existing name is a usage error unless `replace`. */
export function addServer(file: string, name: string, entry: McpServerConfig, options: { replace?: boolean } = {}): void {
  const checkedName = McpServerNameSchema.safeParse(name);
  if (!checkedName.success) throw new MinicodeError('MINICODE_E_USAGE', `invalid server name "${name}": ${checkedName.error.issues[0]!.message}`, { action: 'pick a name such as github or fs' });
  const checked = McpServerSchema.safeParse(entry);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new MinicodeError('MINICODE_E_USAGE', `invalid server ${name}: ${issue.path.join('.') || '(entry)'}: ${issue.message}`, { action: 'see minicode mcp add --help' });
  }
  const raw = readRaw(file);
  const servers = serversOf(raw);
  if (name in servers && !options.replace)
    throw new MinicodeError('MINICODE_E_USAGE', `MCP server ${name} already exists in ${file}`, { action: `pass --replace, or run minicode mcp remove ${name} first` });
  servers[name] = entry;
  writeAtomic(file, { ...raw, mcpServers: servers });
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
