/**
 * What one sandboxed command may touch, as plain data the backends turn into their own syntax
 * (bwrap.ts, seatbelt.ts). Planning reads the file system (what exists, where links lead);
 * the backends' builders are pure.
 *
 * Hazards answered here:
 * - a path given through a symbolic link: every root and hidden path is also planned at its
 *   real location, so a link inside the sandbox cannot reach the unprotected original;
 * - a hidden path that holds a writable root (a workspace under `MINICODE_HOME`): it is hidden
 *   before the root is bound, so the root shows through; one inside a writable root is hidden
 *   after the bind, or the bind would show it again;
 * - `.git/hooks` and `.git/config` of a writable root: a hook planted there runs later, outside
 *   the sandbox, the next time the user runs git; they are bound read-only after the root. A
 *   missing hooks folder is mounted as an empty read-only one, so it cannot be created.
 * - a writable root that is a linked git worktree (a batch line's, under `--isolate worktree`):
 *   its git directory lives in the main repository (`.git/worktrees/NAME`), outside the root.
 *   That one folder and the shared object store are made writable, so `git commit` on the
 *   worktree's detached HEAD works; the repository's hooks, config and refs, and the other
 *   worktrees' git directories, stay read-only.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SandboxMode, SandboxSettings } from './settings.js';
import { dropExpected } from '../debug.js';

/** A path hidden from the command: an empty directory or an empty file in its place. */
export interface HiddenPath {
  path: string;
  kind: 'dir' | 'file';
}

/** A path inside a writable root that stays read-only; `missing`: mounted as an empty read-only folder. */
export interface ProtectedPath {
  path: string;
  missing: boolean;
}

/** The plan of one command. */
export interface SandboxPlan {
  mode: Exclude<SandboxMode, 'off'>;
  cwd: string;
  /**
   * The workspace and the working directory when no writable root holds them (read-only mode,
   * an MCP server's own cwd): bound read-only, since under `/tmp` they would else be out of sight.
   */
  readableRoots: string[];
  /** Hidden before the writable roots are bound (not inside one). */
  hiddenOutside: HiddenPath[];
  writableRoots: string[];
  /** Hidden after the writable roots are bound (inside one). */
  hiddenInside: HiddenPath[];
  protectedPaths: ProtectedPath[];
  /** True: the host's network, shared; false: a network of the command's own with only a loopback. */
  network: boolean;
  /** With the network off, the hosts the allowlisting proxy lets through (network-proxy.ts); empty: no proxy. */
  allowHosts: readonly string[];
}

/**
 * `p` and, when it differs, where its links lead; nothing when `p` does not exist (nothing
 * behind it to protect or to bind). One stat for an absent path: most hidden paths are absent
 * on a given machine, and this runs for every command.
 */
function present(p: string): string[] {
  if (!fs.statSync(p, { throwIfNoEntry: false })) return [];
  try {
    const real = fs.realpathSync.native(p);
    return real === p ? [p] : [p, real];
  } catch (error) {
    // Gone since the stat, or a component unreadable: plan it as given.
    dropExpected('sandbox plan: resolving a path', error, 'ENOENT', 'ENOTDIR', 'EACCES');
    return [p];
  }
}

/** True when `inner` is `outer` or below it. */
export function isWithin(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The git folders of the linked worktree at `root` (its `.git` is a file naming its git
 * directory, whose `commondir` names the repository's): undefined when `root` is no linked
 * worktree. `git commit` there writes `gitDir` (index, HEAD, logs) and `common/objects`, and
 * reads the rest of `common` (config, refs), which a worktree under `/tmp` would not otherwise see.
 */
export function linkedWorktreeGit(root: string): { gitDir: string; common: string } | undefined {
  const dotGit = path.join(root, '.git');
  // No `.git` file (absent, or a folder: a repository's own git directory is inside the root).
  if (!fs.statSync(dotGit, { throwIfNoEntry: false })?.isFile()) return undefined;
  let pointer: string;
  try {
    pointer = fs.readFileSync(dotGit, 'utf8');
  } catch (error) {
    // Gone since the stat, or unreadable: no git directory to plan for.
    dropExpected('sandbox plan: reading .git', error, 'ENOENT', 'EACCES');
    return undefined;
  }
  const match = /^gitdir: (.+)$/m.exec(pointer);
  if (!match) return undefined;
  const gitDir = path.resolve(root, match[1]!.trim());
  try {
    return { gitDir, common: path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim()) };
  } catch (error) {
    // No `commondir`: a submodule's or a separate git directory, not a linked worktree.
    dropExpected('sandbox plan: reading commondir', error, 'ENOENT', 'ENOTDIR');
    return undefined;
  }
}

/** Plan a command run in `cwd` under `settings` (mode not `off`); `workspace` defaults to `cwd`. */
export function planSandbox(settings: SandboxSettings, cwd: string, workspace: string = cwd): SandboxPlan {
  if (settings.mode === 'off') throw new Error('planSandbox: mode off has no plan');
  const writing = settings.mode === 'workspace-write';
  const given = writing ? [workspace, ...settings.writeAllow] : [];
  // A linked worktree's repository is readable in either mode (git status works), writable in part only when the workspace is.
  const linked = (writing ? given : [workspace]).flatMap((root) => linkedWorktreeGit(root) ?? []);
  const gitWrites = writing ? linked.flatMap((l) => [l.gitDir, path.join(l.common, 'objects')]) : [];
  const roots = [...new Set([...given, ...gitWrites].flatMap(present))];
  const readableRoots = [...new Set([workspace, cwd, ...linked.map((l) => l.common)].flatMap(present))].filter(
    (p) => !roots.some((root) => isWithin(p, root)),
  );
  const shown = [...roots, ...readableRoots];
  const hiddenOutside: HiddenPath[] = [];
  const hiddenInside: HiddenPath[] = [];
  const denied = [...new Set(settings.readDeny.flatMap(present))];
  for (const p of denied) {
    // Inside another hidden folder, with no writable root between them showing it again: hidden with it.
    if (
      denied.some(
        (other) =>
          other !== p && isWithin(p, other) && !shown.some((root) => isWithin(root, other) && isWithin(p, root)),
      )
    )
      continue;
    const stat = fs.statSync(p, { throwIfNoEntry: false });
    if (!stat) continue;
    const hidden: HiddenPath = { path: p, kind: stat.isDirectory() ? 'dir' : 'file' };
    (shown.some((root) => isWithin(p, root) && p !== root) ? hiddenInside : hiddenOutside).push(hidden);
  }
  const protectedPaths: ProtectedPath[] = [];
  for (const root of roots) {
    const git = path.join(root, '.git');
    if (!fs.statSync(git, { throwIfNoEntry: false })?.isDirectory()) continue;
    const hooks = path.join(git, 'hooks');
    protectedPaths.push({ path: hooks, missing: !fs.existsSync(hooks) });
    const config = path.join(git, 'config');
    if (fs.existsSync(config)) protectedPaths.push({ path: config, missing: false });
  }
  return {
    mode: settings.mode,
    cwd,
    readableRoots,
    hiddenOutside,
    writableRoots: roots,
    hiddenInside,
    protectedPaths,
    network: settings.network,
    allowHosts: settings.network ? [] : settings.allowHosts,
  };
}
