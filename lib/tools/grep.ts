import fs from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { INPUT_JSON_SCHEMAS } from './input-json-schemas.js';
import { GrepInput } from './input-schemas.js';
import { confinePath, isOutcome } from './paths.js';
import type { Tool } from './types.js';
import { dropExpected, errnoOf } from '../debug.js';

type Input = z.infer<typeof GrepInput>;
const JSON_SCHEMA = INPUT_JSON_SCHEMAS.grep!;

/** Files larger than this are skipped: a search is for source, not for logs or bundles. */
const MAX_SEARCH_FILE_BYTES = 1024 * 1024;

/**
 * `grep`: search file contents line by line, written in-process (no dependency on a `grep`
 * binary, deterministic order), skipping binaries, node_modules, .git and build output.
 */
export const grepTool: Tool<Input> = {
  name: 'grep',
  description:
    'Search file contents with a regular expression. Prints path:line:text for each match (node_modules, .git, build output, .gitignored and binary files are skipped).',
  inputSchema: GrepInput,
  jsonSchema: JSON_SCHEMA,
  kind: 'search',
  gated: false,
  title: (input) => input.pattern,
  async run(input, ctx) {
    // The walker and its packages (ignore, picomatch) load with the first search: most runs never search.
    const { compileGlob, walkFiles } = await import('./walk.js');
    let re: RegExp;
    try {
      re = new RegExp(input.pattern, input.ignore_case ? 'i' : '');
    } catch (error) {
      return {
        status: 'failed',
        cause: 'TOOL_ERROR',
        message: `invalid regular expression: ${(error as Error).message}`,
      };
    }
    const filter = input.glob === undefined ? undefined : compileGlob(input.glob);
    if (filter && !filter.ok)
      return {
        status: 'failed',
        cause: 'TOOL_ERROR',
        message: filter.message,
        hint: 'check the brackets and braces of the glob, e.g. `*.{ts,tsx}`',
      };
    const resolved = await confinePath(ctx, 'grep', input.path ?? '.', 'search');
    if (isOutcome(resolved)) return resolved;
    let files: AsyncIterable<string> | string[];
    let base = resolved.absolute;
    let single: string | undefined;
    try {
      const stat = await fs.stat(resolved.absolute);
      if (stat.isFile()) {
        base = path.dirname(resolved.absolute);
        files = [path.basename(resolved.absolute)];
        single = resolved.display;
      } else files = walkFiles(resolved.absolute, { signal: ctx.signal, ignoreRoot: ctx.cwd });
    } catch (error) {
      const reason =
        errnoOf(error) === 'ENOENT'
          ? 'no such file or directory'
          : `cannot be read (${errnoOf(error) ?? 'unknown error'})`;
      return { status: 'failed', cause: 'FILESYSTEM_ERROR', message: `${resolved.display}: ${reason}` };
    }
    const hits: string[] = [];
    let more = false;
    let outChars = 0;
    search: for await (const file of files) {
      if (filter && !filter.test(file)) continue;
      let bytes: Buffer;
      try {
        const stat = await fs.stat(path.join(base, file));
        if (stat.size > MAX_SEARCH_FILE_BYTES) continue;
        bytes = await fs.readFile(path.join(base, file));
      } catch (error) {
        // Gone or unreadable since the walk listed it: not a match.
        dropExpected('grep: read', error, 'ENOENT', 'ENOTDIR', 'EISDIR', 'EACCES', 'EPERM');
        continue;
      }
      if (bytes.subarray(0, 8192).includes(0)) continue;
      const lines = bytes.toString('utf8').split(/\r?\n/);
      for (let i = 0; i < lines.length; i++) {
        if (!re.test(lines[i]!)) continue;
        if (hits.length >= ctx.limits.maxResults || outChars > ctx.limits.maxOutputChars) {
          more = true;
          break search;
        }
        const line = lines[i]!.length > 300 ? `${lines[i]!.slice(0, 300)}...` : lines[i]!;
        // Paths in hits are workspace-relative, whatever directory was searched.
        const shown = single ?? (resolved.display === '.' ? file : `${resolved.display}/${file}`);
        const hit = `${shown}:${i + 1}:${line}`;
        hits.push(hit);
        outChars += hit.length + 1;
      }
    }
    const output =
      hits.length === 0
        ? 'No matches.'
        : hits.join('\n') + (more ? `\n[... more matches; narrow the pattern or path]` : '');
    return {
      status: 'completed',
      summary: `${hits.length}${more ? '+' : ''} matches for ${input.pattern}`,
      output,
      receipt: { lines: hits.length, truncated: more },
    };
  },
};
