/**
 * `apply_patch`: several file changes in one call, in the patch format OpenAI's coding models
 * write (grammar in patch-parse.ts). Every path goes through the same confinement and approval as
 * write_file and edit (outside the workspace or inside `.git`: asked, denied without a person).
 * The whole patch is planned in memory before anything is written: a malformed patch, a missing
 * file or a context mismatch in any operation fails the call with nothing changed. Offered only
 * through the OpenAI tool shape (lib/tools/shapes.ts), never in minicode's own tool list.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { INPUT_JSON_SCHEMAS } from './input-json-schemas.js';
import { ApplyPatchInput } from './input-schemas.js';
import { makeFileDiff } from './file-diff.js';
import { applyChunks } from './patch-apply.js';
import { parsePatch, type PatchOperation } from './patch-parse.js';
import { confinePath, fsFailure, isOutcome, type ResolvedPath } from './paths.js';
import type { FileChange, Tool, ToolContext, ToolOutcome } from './types.js';

type Input = z.infer<typeof ApplyPatchInput>;

/** What the model is told when its patch does not parse. */
const FORMAT_HINT =
  "write '*** Begin Patch', then '*** Add File: <path>' with '+' lines, '*** Delete File: <path>', or '*** Update File: <path>' with @@ chunks of ' ', '-' and '+' lines, then '*** End Patch'";

/** The description sent with the function form of the tool (the freeform form carries its grammar instead). */
export const APPLY_PATCH_DESCRIPTION = `Edit files with a patch: add, delete, update or move several files in one call. Paths are relative to the workspace. Format:
*** Begin Patch
*** Add File: path/new.txt
+every line of the new file, each prefixed with +
*** Delete File: path/old.txt
*** Update File: path/file.py
*** Move to: path/renamed.py   (optional)
@@ def function_the_change_is_in():
 an unchanged context line (prefixed with a space)
-a removed line
+an added line
*** End Patch
Give about 3 lines of context around each change; use @@ with a class or function line when the context alone is not unique. No line numbers.`;

/** The file states a patch works on: current text (undefined: absent) by absolute path, read once. */
interface Workspace {
  read(resolved: ResolvedPath): Promise<string | undefined | ToolOutcome>;
  set(resolved: ResolvedPath, text: string | undefined): void;
}

function workspace(ctx: ToolContext): Workspace {
  const states = new Map<string, string | undefined>();
  return {
    async read(resolved) {
      if (states.has(resolved.absolute)) return states.get(resolved.absolute);
      const tooLarge: ToolOutcome = {
        status: 'failed',
        cause: 'FILESYSTEM_ERROR',
        message: `${resolved.display} is over the ${ctx.limits.maxFileBytes}-byte edit limit`,
      };
      try {
        let text: string;
        if (ctx.fs) text = await ctx.fs.readTextFile(resolved.absolute);
        else {
          const stat = await fs.stat(resolved.absolute);
          if (stat.isDirectory()) return fsFailure({ code: 'EISDIR' }, resolved.display);
          if (stat.size > ctx.limits.maxFileBytes) return tooLarge;
          text = await fs.readFile(resolved.absolute, 'utf8');
        }
        if (Buffer.byteLength(text) > ctx.limits.maxFileBytes) return tooLarge;
        states.set(resolved.absolute, text);
        return text;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        return fsFailure(error, resolved.display);
      }
    },
    set(resolved, text) {
      states.set(resolved.absolute, text);
    },
  };
}

/** One file the patch changes: its path, what it was and what it becomes (undefined: removed). */
interface PlannedFile {
  resolved: ResolvedPath;
  before: string | undefined;
  after: string | undefined;
  kind: FileChange['kind'];
}

function failed(message: string, hint?: string): ToolOutcome {
  return { status: 'failed', cause: 'TOOL_ERROR', message, ...(hint ? { hint } : {}) };
}

/** Every file the operations change, in order, or the outcome that stops the call. */
async function plan(operations: PatchOperation[], ctx: ToolContext): Promise<PlannedFile[] | ToolOutcome> {
  const files = workspace(ctx);
  const planned = new Map<string, PlannedFile>();
  const note = (
    resolved: ResolvedPath,
    before: string | undefined,
    after: string | undefined,
    kind: FileChange['kind'],
  ): void => {
    const seen = planned.get(resolved.absolute);
    planned.set(resolved.absolute, {
      resolved,
      before: seen ? seen.before : before,
      after,
      kind: seen && seen.kind === 'create' && after !== undefined ? 'create' : kind,
    });
    files.set(resolved, after);
  };
  for (const op of operations) {
    const resolved = await confinePath(ctx, 'apply_patch', op.path, op.kind === 'add' ? 'write' : 'edit');
    if (isOutcome(resolved)) return resolved;
    const current = await files.read(resolved);
    if (current !== undefined && typeof current !== 'string') return current;
    if (op.kind === 'add') {
      note(resolved, current, op.contents, current === undefined ? 'create' : 'modify');
    } else if (op.kind === 'delete') {
      if (current === undefined)
        return failed(`cannot delete ${resolved.display}: no such file`, 'check the path with glob');
      note(resolved, current, undefined, 'delete');
    } else {
      if (current === undefined)
        return failed(`cannot update ${resolved.display}: no such file`, 'use *** Add File: to create a file');
      const applied = applyChunks(current, op.chunks, resolved.display);
      if (!applied.ok) return failed(applied.message, 'read the file again and copy the context lines exactly');
      if (op.moveTo === undefined) {
        note(resolved, current, applied.text, 'modify');
        continue;
      }
      const target = await confinePath(ctx, 'apply_patch', op.moveTo, 'write');
      if (isOutcome(target)) return target;
      const existing = await files.read(target);
      if (existing !== undefined && typeof existing !== 'string') return existing;
      note(resolved, current, undefined, 'move');
      note(target, existing, applied.text, existing === undefined ? 'create' : 'modify');
    }
  }
  return [...planned.values()];
}

async function write(file: PlannedFile, ctx: ToolContext): Promise<void> {
  const { absolute } = file.resolved;
  if (file.after === undefined) {
    // A surface's file access (ACP) has no delete: the file is removed on disk.
    await fs.rm(absolute, { force: true });
  } else if (ctx.fs) {
    await ctx.fs.writeTextFile(absolute, file.after);
  } else {
    await fs.mkdir(path.dirname(absolute), { recursive: true });
    await fs.writeFile(absolute, file.after, 'utf8');
  }
}

const LETTER: Record<FileChange['kind'], string> = { create: 'A', modify: 'M', delete: 'D', move: 'D' };

/** `apply_patch`: a multi-file patch, planned whole before anything is written. */
export const applyPatchTool: Tool<Input> = {
  name: 'apply_patch',
  description: APPLY_PATCH_DESCRIPTION,
  inputSchema: ApplyPatchInput,
  jsonSchema: INPUT_JSON_SCHEMAS.apply_patch!,
  kind: 'edit',
  gated: false,
  offered: false,
  title: (input) => {
    const parsed = parsePatch(input.input);
    return parsed.ok ? parsed.operations.map((op) => op.path).join(', ') : 'apply_patch';
  },
  async run(input, ctx) {
    const parsed = parsePatch(input.input);
    if (!parsed.ok) return failed(`invalid patch at line ${parsed.line}: ${parsed.message}`, FORMAT_HINT);
    const files = await plan(parsed.operations, ctx);
    if (!Array.isArray(files)) return files;
    const changes: FileChange[] = [];
    for (const file of files) {
      try {
        await write(file, ctx);
      } catch (error) {
        const failure = fsFailure(error, file.resolved.display);
        return failure.status === 'failed' && changes.length > 0
          ? { ...failure, message: `${failure.message} (after changing ${changes.map((c) => c.path).join(', ')})` }
          : failure;
      }
      const diff = file.after === undefined ? undefined : await makeFileDiff(file.before, file.after);
      changes.push({ path: file.resolved.display, kind: file.kind, ...(diff ? { diff } : {}) });
    }
    const lines = changes.map((c) => `${LETTER[c.kind]} ${c.path}`);
    return {
      status: 'completed',
      summary: `patched ${changes.length} file${changes.length === 1 ? '' : 's'}`,
      output: `Success. Updated the following files:\n${lines.join('\n')}`,
      receipt: { paths: changes.map((c) => c.path) },
      fileChanges: changes,
    };
  },
};
