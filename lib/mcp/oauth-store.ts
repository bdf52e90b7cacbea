/**
 * Where `minicode mcp login` keeps what an OAuth login to one MCP server gives: the client
 * registration, the tokens and the discovered endpoints, in `$MINICODE_HOME/mcp-oauth/NAME.json`
 * (else `~/.config/minicode/mcp-oauth/`). The folder is 0700 and each file 0600, written beside
 * itself and renamed so a crash never leaves half a file. A record holds the URL it was made for:
 * after the entry's URL changes, its tokens are never sent to the new address.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { userConfigPath } from '../config-files.js';
import { dropExpected } from '../debug.js';
import { MinicodeError } from '../errors.js';
import { makePrivateDir, replaceFile } from '../private-files.js';
import { McpServerNameSchema } from './config.js';

/** What one login leaves on disk; the SDK's objects are kept as it gave them (it checks them when it reads them back). */
export const OAuthRecordSchema = z.object({
  version: z.literal(1),
  /** The server URL the login was made for. */
  url: z.string(),
  client: z.record(z.string(), z.unknown()).optional(),
  tokens: z.record(z.string(), z.unknown()).optional(),
  /** When the access token expires (ms since the epoch), from `expires_in` at the time it was saved. */
  expiresAt: z.number().optional(),
  discovery: z.record(z.string(), z.unknown()).optional(),
});
/** One server's stored login. */
export type OAuthRecord = z.infer<typeof OAuthRecordSchema>;

/** The folder of stored logins: `mcp-oauth/` beside the user config. */
export function oauthDir(env: NodeJS.ProcessEnv): string {
  return path.join(path.dirname(userConfigPath(env)), 'mcp-oauth');
}

/** The file of server `name`'s login; a name a config could not hold (a path separator) is a usage error. */
export function oauthFile(env: NodeJS.ProcessEnv, name: string): string {
  const checked = McpServerNameSchema.safeParse(name);
  if (!checked.success)
    throw new MinicodeError('MINICODE_E_USAGE', `invalid server name "${name}": ${checked.error.issues[0]!.message}`, {
      action: 'give the name as minicode mcp list shows it',
    });
  return path.join(oauthDir(env), `${name}.json`);
}

/** The record in `file`; undefined when absent or unreadable (a damaged file is a login to do again). */
export function readOAuthRecord(file: string): OAuthRecord | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    dropExpected('mcp: reading an OAuth record', error, 'ENOENT');
    return undefined;
  }
  try {
    const parsed = OAuthRecordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch (error) {
    dropExpected('mcp: parsing an OAuth record', error, 'SyntaxError');
    return undefined;
  }
}

/** Write `record` to `file` with mode 0600 in a 0700 folder, replacing the old file atomically. */
export function writeOAuthRecord(file: string, record: OAuthRecord): void {
  // A folder made earlier by hand may be wider: the tokens in it are not for other users.
  makePrivateDir(path.dirname(file));
  replaceFile(file, `${JSON.stringify(record, null, 2)}\n`);
}

/** Forget the login in `file`; true when there was one. */
export function removeOAuthRecord(file: string): boolean {
  try {
    fs.unlinkSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
