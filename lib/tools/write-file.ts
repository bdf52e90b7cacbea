import fs from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { INPUT_JSON_SCHEMAS } from './input-json-schemas.js';
import { WriteFileInput } from './input-schemas.js';
import { makeFileDiff } from './file-diff.js';
import { confinePath, fsFailure, isOutcome, resolvePath } from './paths.js';
import type { Tool, ToolContext } from './types.js';
import { dropExpected } from '../debug.js';
import { definedOnly } from '../defined-only.js';

type Input = z.infer<typeof WriteFileInput>;
const JSON_SCHEMA = INPUT_JSON_SCHEMAS.write_file!;

/**
 * The file's current text for a diff: undefined when it does not exist, null when it cannot be
 * shown (too large, unreadable, or behind a surface's own file access, which is not read twice).
 */
async function currentText(absolute: string, ctx: ToolContext): Promise<string | undefined | null> {
  if (ctx.fs) return null;
  try {
    const stat = await fs.stat(absolute);
    if (!stat.isFile() || stat.size > ctx.limits.maxFileBytes) return null;
    return await fs.readFile(absolute, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : null;
  }
}

/** `write_file`: create or overwrite a file (parent directories are created). */
export const writeFileTool: Tool<Input> = {
  name: 'write_file',
  description: 'Create a file or replace its whole content. Prefer edit for changing part of an existing file.',
  inputSchema: WriteFileInput,
  jsonSchema: JSON_SCHEMA,
  kind: 'edit',
  gated: false,
  title: (input) => input.path,
  async preview(input, ctx) {
    const before = await currentText(resolvePath(ctx, input.path).absolute, ctx);
    return before === null ? undefined : makeFileDiff(before, input.content);
  },
  async run(input, ctx) {
    const resolved = await confinePath(ctx, 'write_file', input.path, 'write');
    if (isOutcome(resolved)) return resolved;
    let existed = true;
    try {
      await fs.access(resolved.absolute);
    } catch (error) {
      dropExpected('write_file: is there a file', error, 'ENOENT', 'ENOTDIR');
      existed = false;
    }
    const before = existed ? await currentText(resolved.absolute, ctx) : undefined;
    try {
      if (ctx.fs) await ctx.fs.writeTextFile(resolved.absolute, input.content);
      else {
        await fs.mkdir(path.dirname(resolved.absolute), { recursive: true });
        await fs.writeFile(resolved.absolute, input.content, 'utf8');
      }
    } catch (error) {
      return fsFailure(error, resolved.display);
    }
    const bytes = Buffer.byteLength(input.content);
    const kind = existed ? 'modify' : 'create';
    const diff = before === null ? undefined : await makeFileDiff(before, input.content);
    return {
      status: 'completed',
      summary: `${existed ? 'wrote' : 'created'} ${resolved.display} (${bytes} bytes)`,
      output: `${existed ? 'Wrote' : 'Created'} ${resolved.display} (${bytes} bytes).`,
      receipt: { bytes, paths: [resolved.display] },
      fileChanges: [definedOnly({ path: resolved.display, kind, diff })],
    };
  },
};
