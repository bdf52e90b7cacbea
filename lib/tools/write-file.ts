import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { confinePath, fsFailure, isOutcome } from './paths.js';
import type { Tool } from './types.js';

const Input = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace'),
  content: z.string().describe('The whole new content of the file'),
});
type Input = z.infer<typeof Input>;

/** `write_file`: create or overwrite a file (parent directories are created). */
export const writeFileTool: Tool<Input> = {
  name: 'write_file',
  description: 'Create a file or replace its whole content. Prefer edit for changing part of an existing file.',
  inputSchema: Input,
  kind: 'edit',
  gated: false,
  title: (input) => input.path,
  async run(input, ctx) {
    const resolved = await confinePath(ctx, 'write_file', input.path, 'write');
    if (isOutcome(resolved)) return resolved;
    let existed = true;
    try {
      await fs.access(resolved.absolute);
    } catch {
      existed = false;
    }
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
    return {
      status: 'completed',
      summary: `${existed ? 'wrote' : 'created'} ${resolved.display} (${bytes} bytes)`,
      output: `${existed ? 'Wrote' : 'Created'} ${resolved.display} (${bytes} bytes).`,
      receipt: { bytes, paths: [resolved.display] },
      fileChanges: [{ path: resolved.display, kind }],
    };
  },
};
