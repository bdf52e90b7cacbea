import fs from 'node:fs/promises';
import { z } from 'zod';
import { confinePath, fsFailure, isOutcome } from './paths.js';
import type { Tool, ToolOutcome } from './types.js';

const Input = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace'),
  old_string: z.string().min(1).describe('Exact text to replace, including whitespace; must occur exactly once unless replace_all'),
  new_string: z.string().describe('Replacement text'),
  replace_all: z.boolean().optional().describe('Replace every occurrence; default false'),
});
type Input = z.infer<typeof Input>;

/** Occurrences of `needle` in `haystack`, non-overlapping, counted without building arrays. */
export function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

function tooLarge(display: string, max: number): ToolOutcome {
  return { status: 'failed', cause: 'FILESYSTEM_ERROR', message: `${display} is over the ${max}-byte edit limit` };
}

/** `edit`: exact string replacement; absent or ambiguous old text is a clear failure, never a guess. */
export const editTool: Tool<Input> = {
  name: 'edit',
  description: 'Replace exact text in a file. old_string must match the file exactly (whitespace included) and occur once; set replace_all to change every occurrence.',
  inputSchema: Input,
  kind: 'edit',
  gated: false,
  title: (input) => input.path,
  async run(input, ctx) {
    const resolved = await confinePath(ctx, 'edit', input.path, 'edit');
    if (isOutcome(resolved)) return resolved;
    if (input.old_string === input.new_string) {
      return { status: 'failed', cause: 'TOOL_ERROR', message: 'old_string and new_string are identical; nothing to change' };
    }
    let text: string;
    try {
      if (ctx.fs) {
        text = await ctx.fs.readTextFile(resolved.absolute);
        if (Buffer.byteLength(text) > ctx.limits.maxFileBytes) return tooLarge(resolved.display, ctx.limits.maxFileBytes);
      } else {
        const stat = await fs.stat(resolved.absolute);
        if (stat.size > ctx.limits.maxFileBytes) return tooLarge(resolved.display, ctx.limits.maxFileBytes);
        text = await fs.readFile(resolved.absolute, 'utf8');
      }
    } catch (error) {
      return fsFailure(error, resolved.display);
    }
    const count = countOccurrences(text, input.old_string);
    if (count === 0) {
      return {
        status: 'failed',
        cause: 'TOOL_ERROR',
        message: `old_string not found in ${resolved.display}`,
        hint: 'read the file again and copy the text exactly, including indentation and line breaks',
      };
    }
    if (count > 1 && input.replace_all !== true) {
      return {
        status: 'failed',
        cause: 'TOOL_ERROR',
        message: `old_string occurs ${count} times in ${resolved.display}; it must be unique`,
        hint: 'add surrounding lines to make it unique, or set replace_all to true',
      };
    }
    // split/join rather than String.replace: no `$&` substitution surprises in new_string.
    const updated = text.split(input.old_string).join(input.new_string);
    try {
      if (ctx.fs) await ctx.fs.writeTextFile(resolved.absolute, updated);
      else await fs.writeFile(resolved.absolute, updated, 'utf8');
    } catch (error) {
      return fsFailure(error, resolved.display);
    }
    const plural = count === 1 ? 'occurrence' : 'occurrences';
    return {
      status: 'completed',
      summary: `edited ${resolved.display} (${count} ${plural})`,
      output: `Replaced ${count} ${plural} in ${resolved.display}.`,
      receipt: { paths: [resolved.display], bytes: Buffer.byteLength(updated) },
      fileChanges: [{ path: resolved.display, kind: 'modify' }],
    };
  },
};
