/**
 * `insert_text`: text placed after a given line, the Anthropic text editor's `insert` command as
 * a tool of ours (same confinement, approval and diff as edit). Offered only through that tool
 * shape (lib/tools/shapes.ts): minicode's own list has edit for this.
 */
import fs from 'node:fs/promises';
import type { z } from 'zod';
import { INPUT_JSON_SCHEMAS } from './input-json-schemas.js';
import { InsertTextInput } from './input-schemas.js';
import { makeFileDiff } from './file-diff.js';
import { confinePath, fsFailure, isOutcome, resolvePath } from './paths.js';
import type { Tool, ToolContext, ToolOutcome } from './types.js';

type Input = z.infer<typeof InsertTextInput>;

/** `text` with `insertion` after line `after` (0: before the first), or the failed outcome when the file is shorter. */
export function insertAfterLine(text: string, after: number, insertion: string, display: string): string | ToolOutcome {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const finalNewline = text === '' || text.endsWith('\n');
  const lines = text === '' ? [] : text.split(/\r?\n/);
  if (text.endsWith('\n')) lines.pop();
  if (after > lines.length) {
    return {
      status: 'failed',
      cause: 'TOOL_ERROR',
      message: `insert_line ${after} is past the end of ${display} (${lines.length} lines)`,
      hint: `use a line from 0 to ${lines.length}`,
    };
  }
  const added = insertion.split(/\r?\n/);
  // The inserted text's own final newline is the line end it gets anyway.
  if (added.length > 1 && added[added.length - 1] === '') added.pop();
  lines.splice(after, 0, ...added);
  return lines.join(eol) + (finalNewline ? eol : '');
}

async function readText(absolute: string, display: string, ctx: ToolContext): Promise<string | ToolOutcome> {
  try {
    if (ctx.fs) return await ctx.fs.readTextFile(absolute);
    const stat = await fs.stat(absolute);
    if (stat.size > ctx.limits.maxFileBytes)
      return {
        status: 'failed',
        cause: 'FILESYSTEM_ERROR',
        message: `${display} is over the ${ctx.limits.maxFileBytes}-byte edit limit`,
      };
    return await fs.readFile(absolute, 'utf8');
  } catch (error) {
    return fsFailure(error, display);
  }
}

/** `insert_text`: insert after a line number. */
export const insertTextTool: Tool<Input> = {
  name: 'insert_text',
  description: 'Insert text after a line of a file (0: at the top).',
  inputSchema: InsertTextInput,
  jsonSchema: INPUT_JSON_SCHEMAS.insert_text!,
  kind: 'edit',
  gated: false,
  offered: false,
  title: (input) => input.path,
  async preview(input, ctx) {
    if (ctx.fs) return undefined;
    // No approval is asked for a preview: the path is only resolved.
    const text = await readText(resolvePath(ctx, input.path).absolute, input.path, ctx);
    if (typeof text !== 'string') return undefined;
    const updated = insertAfterLine(text, input.insert_line, input.text, input.path);
    return typeof updated === 'string' ? makeFileDiff(text, updated) : undefined;
  },
  async run(input, ctx) {
    const resolved = await confinePath(ctx, 'insert_text', input.path, 'edit');
    if (isOutcome(resolved)) return resolved;
    const text = await readText(resolved.absolute, resolved.display, ctx);
    if (typeof text !== 'string') return text;
    const updated = insertAfterLine(text, input.insert_line, input.text, resolved.display);
    if (typeof updated !== 'string') return updated;
    try {
      if (ctx.fs) await ctx.fs.writeTextFile(resolved.absolute, updated);
      else await fs.writeFile(resolved.absolute, updated, 'utf8');
    } catch (error) {
      return fsFailure(error, resolved.display);
    }
    const diff = await makeFileDiff(text, updated);
    return {
      status: 'completed',
      summary: `inserted into ${resolved.display} after line ${input.insert_line}`,
      output: `Inserted the text after line ${input.insert_line} of ${resolved.display}.`,
      receipt: { paths: [resolved.display], bytes: Buffer.byteLength(updated) },
      fileChanges: [{ path: resolved.display, kind: 'modify', ...(diff ? { diff } : {}) }],
    };
  },
};
