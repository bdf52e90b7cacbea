import fs from 'node:fs';
import path from 'node:path';
import type { ApprovalRequest, ToolContext, ToolOutcome } from './types.js';
import { definedOnly } from '../defined-only.js';
import { dropExpected } from '../debug.js';

/** A path a tool was given, resolved against the workspace. */
export interface ResolvedPath {
  absolute: string;
  /** Relative to the workspace when inside it, else the absolute path (for messages and events). */
  display: string;
  /** Inside the workspace or one of the allowed roots. */
  allowed: boolean;
}

function within(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The real path of `p`, or of its nearest existing ancestor joined with the rest (for new files). */
function realish(p: string): string {
  const missing: string[] = [];
  let current = p;
  for (;;) {
    try {
      return path.join(fs.realpathSync(current), ...missing.reverse());
    } catch (error) {
      dropExpected('resolving a path', error, 'ENOENT', 'ENOTDIR');
      const parent = path.dirname(current);
      if (parent === current) return p;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Resolve `input` against `ctx.cwd`. Symlinks are followed before the confinement check, so a
 * link inside the workspace that points outside it counts as outside.
 */
export function resolvePath(ctx: Pick<ToolContext, 'cwd' | 'allowedPaths'>, input: string): ResolvedPath {
  const absolute = path.resolve(ctx.cwd, input);
  const real = realish(absolute);
  const roots = [ctx.cwd, ...(ctx.allowedPaths ?? [])].map((r) => realish(path.resolve(r)));
  const allowed = roots.some((root) => within(root, real));
  const root = realish(path.resolve(ctx.cwd));
  const display = within(root, real) ? path.relative(root, real) || '.' : absolute;
  return { absolute, display, allowed };
}

/**
 * Resolve a path and, when it is outside the allowlist, ask the approval hook. Returns the
 * resolved path, or the `denied` outcome to return as is.
 */
export async function confinePath(
  ctx: ToolContext,
  toolName: string,
  input: string,
  verb: string,
): Promise<ResolvedPath | ToolOutcome> {
  const resolved = resolvePath(ctx, input);
  if (CHANGING_VERBS.has(verb) && inGitInternals(resolved.absolute))
    return confineGitInternals(ctx, toolName, resolved, verb);
  if (resolved.allowed) return resolved;
  const request: ApprovalRequest = definedOnly({
    toolName,
    action: `${verb} ${resolved.absolute}`,
    reason: 'outside-workspace',
    toolCallId: ctx.toolCallId,
  });
  const decision = await ctx.approve(request);
  if (decision === 'allow' || decision === 'allow-always') return resolved;
  return {
    status: 'denied',
    reason: `${verb} outside the workspace denied: ${resolved.absolute} is not under ${ctx.cwd}`,
  };
}

/** Verbs of the file tools that change a file. */
const CHANGING_VERBS = new Set(['write', 'edit']);

/**
 * True when `absolute` (symlinks followed) is inside a `.git` directory or is a `.git` file:
 * git's own files (hooks run code on the next commit, config can name programs git runs, refs
 * move branches), which a checkpoint cannot hold, so undo could not take a change back.
 */
export function inGitInternals(absolute: string): boolean {
  return realish(absolute).split(path.sep).includes('.git');
}

/**
 * A change inside git's own files, inside the workspace or not: only with approval (denied
 * without a person to ask), and the request says that undo cannot take it back.
 */
async function confineGitInternals(
  ctx: ToolContext,
  toolName: string,
  resolved: ResolvedPath,
  verb: string,
): Promise<ResolvedPath | ToolOutcome> {
  const request: ApprovalRequest = definedOnly({
    toolName,
    action: `${verb} ${resolved.display} (git's own files: minicode undo cannot take this back)`,
    reason: 'git-internals',
    toolCallId: ctx.toolCallId,
  });
  const decision = await ctx.approve(request);
  if (decision === 'allow' || decision === 'allow-always') return resolved;
  return {
    status: 'denied',
    reason: `${verb} of ${resolved.display} denied: it is inside git's own files (.git), which checkpoints do not hold`,
  };
}

/** True when `value` is a tool outcome rather than a resolved path. */
export function isOutcome(value: ResolvedPath | ToolOutcome): value is ToolOutcome {
  return 'status' in value;
}

/** A filesystem error as a failed outcome with the category the event model wants. */
export function fsFailure(error: unknown, display: string): ToolOutcome {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT')
    return {
      status: 'failed',
      cause: 'FILESYSTEM_ERROR',
      message: `${display}: no such file`,
      hint: 'check the path with glob',
    };
  if (code === 'EISDIR')
    return {
      status: 'failed',
      cause: 'FILESYSTEM_ERROR',
      message: `${display} is a directory`,
      hint: 'use glob to list a directory',
    };
  if (code === 'EACCES' || code === 'EPERM')
    return { status: 'failed', cause: 'PERMISSION_ERROR', message: `${display}: permission denied` };
  return {
    status: 'failed',
    cause: 'FILESYSTEM_ERROR',
    message: `${display}: ${(error as Error)?.message ?? String(error)}`,
  };
}
