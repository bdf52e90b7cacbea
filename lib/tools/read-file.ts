import fs from 'node:fs/promises';
import type { z } from 'zod';
import { INPUT_JSON_SCHEMAS } from './input-json-schemas.js';
import { ReadFileInput } from './input-schemas.js';
import { confinePath, fsFailure, isOutcome } from './paths.js';
import { capHeadTail } from './truncate.js';
import type { Tool, ToolOutcome } from './types.js';

type Input = z.infer<typeof ReadFileInput>;
const JSON_SCHEMA = INPUT_JSON_SCHEMAS.read_file!;

/** True when the first 8 KiB hold a NUL byte: the usual binary-file test. */
function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8192).includes(0);
}

function tooLarge(display: string, size: number, max: number): ToolOutcome {
  return {
    status: 'failed',
    cause: 'FILESYSTEM_ERROR',
    message: `${display} is ${size} bytes, over the ${max}-byte read limit`,
    hint: 'use grep to find the part you need',
  };
}

/** `read_file`: a page of a text file with line numbers (`cat -n` style), capped in size. */
export const readFileTool: Tool<Input> = {
  name: 'read_file',
  description:
    'Read a text file from the workspace. Lines are numbered from 1. Use offset and limit to page through long files.',
  inputSchema: ReadFileInput,
  jsonSchema: JSON_SCHEMA,
  kind: 'read',
  gated: false,
  title: (input) => input.path,
  async run(input, ctx) {
    const resolved = await confinePath(ctx, 'read_file', input.path, 'read');
    if (isOutcome(resolved)) return resolved;
    let bytes: Buffer;
    try {
      if (ctx.fs) {
        // The surface's files (an IDE's buffers): text only, so the size cap applies after reading.
        bytes = Buffer.from(await ctx.fs.readTextFile(resolved.absolute), 'utf8');
        if (bytes.length > ctx.limits.maxFileBytes)
          return tooLarge(resolved.display, bytes.length, ctx.limits.maxFileBytes);
      } else {
        const stat = await fs.stat(resolved.absolute);
        if (stat.isDirectory()) return fsFailure({ code: 'EISDIR' }, resolved.display);
        if (stat.size > ctx.limits.maxFileBytes) return tooLarge(resolved.display, stat.size, ctx.limits.maxFileBytes);
        bytes = await fs.readFile(resolved.absolute);
      }
    } catch (error) {
      return fsFailure(error, resolved.display);
    }
    if (looksBinary(bytes)) {
      return {
        status: 'failed',
        cause: 'FILESYSTEM_ERROR',
        message: `${resolved.display} looks like a binary file`,
        receipt: { bytes: bytes.length },
      };
    }
    const lines = bytes.toString('utf8').split(/\r?\n/);
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const offset = input.offset ?? 1;
    const limit = input.limit ?? ctx.limits.readPageLines;
    const page = lines.slice(offset - 1, offset - 1 + limit);
    const width = String(offset + page.length).length;
    const shown = page.map((line, i) => {
      const cut =
        line.length > ctx.limits.maxLineChars ? `${line.slice(0, ctx.limits.maxLineChars)}[... line cut]` : line;
      return `${String(offset + i).padStart(width)}\t${cut}`;
    });
    const last = offset + page.length - 1;
    const more =
      last < lines.length
        ? `\n[showing lines ${offset}-${last} of ${lines.length}; use offset=${last + 1} for more]`
        : '';
    const { text, truncated } = capHeadTail(shown.join('\n') + more, ctx.limits.maxOutputChars);
    const summary =
      page.length === 0
        ? `${resolved.display}: no lines at offset ${offset} (file has ${lines.length})`
        : `read ${resolved.display} lines ${offset}-${last} of ${lines.length}`;
    return {
      status: 'completed',
      summary,
      output: text,
      receipt: {
        bytes: bytes.length,
        lines: page.length,
        paths: [resolved.display],
        truncated: truncated || more !== '',
      },
    };
  },
};
