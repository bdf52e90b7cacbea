/**
 * Readers for the shared secret/terminal corpus (`../shared/fixtures/secrets/`, third-party
 * test vectors read in place; see its SOURCES.md) and the leak check its NOTES recommend.
 */
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES } from '../helpers/cli.js';

export const SECRETS_DIR = path.join(FIXTURES, 'secrets');

export interface PositiveRow {
  text: string;
  secret: string;
  kind: string;
  tier: string;
}
export interface NegativeRow {
  text: string;
  mustKeep: string;
  kind: string;
  tier: string;
}
export interface TerminalRow {
  id: string;
  context: string;
  input: string;
  chunks?: string[];
  mustNotContain?: string[];
  mustNotMatch?: string[];
  mustContain?: string[];
}

export function readJsonl<T>(name: string): T[] {
  return fs
    .readFileSync(path.join(SECRETS_DIR, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as T);
}

/**
 * A secret leaked when it survives whole, or when any 16-char window from its last two thirds
 * survives (a kept public prefix such as `ghp_` or an app id is allowed).
 */
export function leaks(out: string, secret: string): boolean {
  if (out.includes(secret)) return true;
  for (let i = Math.floor(secret.length / 3); i + 16 <= secret.length; i++)
    if (out.includes(secret.slice(i, i + 16))) return true;
  return false;
}

/** Tool names, paths and commands are one-line fields. */
export function isSingleLineContext(context: string): boolean {
  return context === 'tool-name' || context === 'path' || context === 'command';
}

/** Feed `pieces` through a push/end pair and join the output. */
export function feed(p: { push(t: string): string; end(): string }, pieces: readonly string[]): string {
  const out: string[] = [];
  for (const piece of pieces) out.push(p.push(piece));
  out.push(p.end());
  return out.join('');
}
