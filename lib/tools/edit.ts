import fs from 'node:fs/promises';
import type { z } from 'zod';
import { INPUT_JSON_SCHEMAS } from './input-json-schemas.js';
import { EditInput } from './input-schemas.js';
import { makeFileDiff } from './file-diff.js';
import { confinePath, fsFailure, isOutcome, resolvePath } from './paths.js';
import type { Tool, ToolContext, ToolOutcome } from './types.js';
import { definedOnly } from '../defined-only.js';

type Input = z.infer<typeof EditInput>;
const JSON_SCHEMA = INPUT_JSON_SCHEMAS.edit!;

/** Occurrences of `needle` in `haystack`, non-overlapping, counted without building arrays. */
export function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

function tooLarge(display: string, max: number): ToolOutcome {
  return { status: 'failed', cause: 'FILESYSTEM_ERROR', message: `${display} is over the ${max}-byte edit limit` };
}

/** The file's text and what the edit would make of it, or the failed outcome. */
async function planEdit(
  input: Input,
  absolute: string,
  display: string,
  ctx: ToolContext,
): Promise<{ text: string; updated: string; count: number } | ToolOutcome> {
  if (input.old_string === input.new_string) {
    return {
      status: 'failed',
      cause: 'TOOL_ERROR',
      message: 'old_string and new_string are identical; nothing to change',
    };
  }
  let text: string;
  try {
    if (ctx.fs) {
      text = await ctx.fs.readTextFile(absolute);
      if (Buffer.byteLength(text) > ctx.limits.maxFileBytes) return tooLarge(display, ctx.limits.maxFileBytes);
    } else {
      const stat = await fs.stat(absolute);
      if (stat.size > ctx.limits.maxFileBytes) return tooLarge(display, ctx.limits.maxFileBytes);
      text = await fs.readFile(absolute, 'utf8');
    }
  } catch (error) {
    return fsFailure(error, display);
  }
  const count = countOccurrences(text, input.old_string);
  if (count === 0) {
    return {
      status: 'failed',
      cause: 'TOOL_ERROR',
      message: `old_string not found in ${display}`,
      hint: 'read the file again and copy the text exactly, including indentation and line breaks',
    };
  }
  if (count > 1 && input.replace_all !== true) {
    return {
      status: 'failed',
      cause: 'TOOL_ERROR',
      message: `old_string occurs ${count} times in ${display}; it must be unique`,
      hint: 'add surrounding lines to make it unique, or set replace_all to true',
    };
  }
  // split/join rather than String.replace: no `$&` substitution surprises in new_string.
  return { text, updated: text.split(input.old_string).join(input.new_string), count };
}

/** `edit`: exact string replacement; absent or ambiguous old text is a clear failure, never a guess. */
export const editTool: Tool<Input> = {
  name: 'edit',
  description:
    'Replace exact text in a file. old_string must match the file exactly (whitespace included) and occur once; set replace_all to change every occurrence.',
  inputSchema: EditInput,
  jsonSchema: JSON_SCHEMA,
  kind: 'edit',
  gated: false,
  title: (input) => input.path,
  async preview(input, ctx) {
    // A surface's own file access (an IDE's buffers) is not read twice just to preview.
    if (ctx.fs) return undefined;
    const resolved = resolvePath(ctx, input.path);
    const plan = await planEdit(input, resolved.absolute, resolved.display, ctx);
    return 'status' in plan ? undefined : makeFileDiff(plan.text, plan.updated);
  },
  async run(input, ctx) {
    const resolved = await confinePath(ctx, 'edit', input.path, 'edit');
    if (isOutcome(resolved)) return resolved;
    const plan = await planEdit(input, resolved.absolute, resolved.display, ctx);
    if ('status' in plan) return plan;
    const { text, updated, count } = plan;
    try {
      if (ctx.fs) await ctx.fs.writeTextFile(resolved.absolute, updated);
      else await fs.writeFile(resolved.absolute, updated, 'utf8');
    } catch (error) {
      return fsFailure(error, resolved.display);
    }
    const plural = count === 1 ? 'occurrence' : 'occurrences';
    const diff = await makeFileDiff(text, updated);
    return {
      status: 'completed',
      summary: `edited ${resolved.display} (${count} ${plural})`,
      output: `Replaced ${count} ${plural} in ${resolved.display}.`,
      receipt: { paths: [resolved.display], bytes: Buffer.byteLength(updated) },
      fileChanges: [definedOnly({ path: resolved.display, kind: 'modify', diff })],
    };
  },
};
