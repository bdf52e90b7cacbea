/**
 * Helpers of the MCP tests: the real servers (our hostile one, the reference servers from npm),
 * a wait for conditions, and a process-liveness check for the no-orphans tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';
import type { McpServerConfig, ResolvedServer } from '../../lib/mcp/config.js';

/** Our hostile test server (plain ESM, runs on Node without a build). */
export const HOSTILE = path.join(ROOT, 'test/mcp/servers/hostile.mjs');
/** The protocol's reference servers, installed as devDependencies. */
export const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

/** A stdio config running `script` with Node. */
export function nodeServer(script: string, args: string[] = [], extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { command: process.execPath, args: [script, ...args], ...extra } as McpServerConfig;
}

/** A resolved server as the manager takes it (defaults: 20 s start-up under a loaded machine, 60 s calls). */
export function resolved(
  name: string,
  config: McpServerConfig,
  overrides: Partial<ResolvedServer> = {},
): ResolvedServer {
  return { name, config, startupTimeoutMs: 20_000, toolTimeoutMs: 60_000, origin: 'config', ...overrides };
}

/** A fresh temp directory. */
export function tempDir(prefix = 'minicode-mcp-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** True while a process with `pid` exists (and is not a zombie we could still reap). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true;
  }
}

/** Wait until `check` holds (polling), failing with `what` after `timeoutMs`. */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Pids written by the hostile server's `--pid-file`. */
export function pidsIn(file: string): number[] {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
}

/** Pids of live processes whose command line contains `tag` (Linux /proc). */
export function processesTagged(tag: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(tag) && alive(Number(entry)))
        pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}
