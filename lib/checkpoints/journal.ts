/**
 * The store's journal: each turn that took a checkpoint has two refs under
 * `refs/minicode/turns/<key>/`: `before` (the checkpoint, written before the turn's first
 * workspace-changing tool call) and `after` (moved after every such call). A crash between the
 * two leaves `before` alone, which is enough to undo: the state after is then the current one.
 * When the turn settles, `ended` (at the last snapshot) marks it over: a process that outlives
 * its turns (chat, ACP) is then not taken for a run still writing.
 * The metadata lives in the commit subject, so listing is one `for-each-ref`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FileChange } from '../events/payloads.js';
import { runGit, splitNul } from './git.js';
import { definedOnly } from '../defined-only.js';

/** Why a checkpoint was taken: before an agent turn, or before an undo (so the undo can be undone). */
export type CheckpointKind = 'turn' | 'undo';

/** One turn as the journal knows it. */
export interface TurnRecord {
  /** Sortable key: creation time in ms, then a random suffix. */
  key: string;
  sessionId: string;
  /** The turn number, or for an undo the key of the turn it undid. */
  turn: string;
  kind: CheckpointKind;
  /** Creation time, ms since the epoch. */
  at: number;
  /** The checkpoint: the workspace before the turn. */
  before: string;
  /** The tree of `before`. */
  beforeTree: string;
  /** The workspace after the turn's last workspace-changing call; absent after a crash. */
  after?: string;
  /** The tree of `after`. */
  afterTree?: string;
  /** Pid of the process that ran the turn (absent for an undo and for older records). */
  writerPid?: number;
  /** The turn settled (its `ended` ref): its process, alive or not, writes no more in it. */
  ended?: boolean;
}

const PREFIX = 'refs/minicode/turns/';

/** The subject line that carries a record's metadata. */
export function recordSubject(meta: {
  sessionId: string;
  turn: string;
  kind: CheckpointKind;
  at: number;
  writerPid?: number;
}): string {
  const pid = meta.writerPid === undefined ? '' : ` pid=${meta.writerPid}`;
  return `minicode-checkpoint kind=${meta.kind} session=${encodeURIComponent(meta.sessionId)} turn=${encodeURIComponent(meta.turn)} at=${meta.at}${pid}`;
}

function parseSubject(
  subject: string,
): { sessionId: string; turn: string; kind: CheckpointKind; at: number; writerPid?: number } | undefined {
  const fields = new Map(
    subject
      .split(' ')
      .slice(1)
      .map((f) => [f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1)] as const),
  );
  const kind = fields.get('kind');
  const at = Number(fields.get('at'));
  if ((kind !== 'turn' && kind !== 'undo') || !Number.isFinite(at)) return undefined;
  const pid = Number(fields.get('pid'));
  try {
    return definedOnly({
      kind,
      at,
      sessionId: decodeURIComponent(fields.get('session') ?? ''),
      turn: decodeURIComponent(fields.get('turn') ?? ''),
      writerPid: Number.isInteger(pid) && pid > 0 ? pid : undefined,
    });
  } catch {
    // A damaged %-escape: not an entry of ours.
    return undefined;
  }
}

/** A fresh record key for time `at`. */
export function newRecordKey(at: number): string {
  return `${String(at).padStart(13, '0')}-${randomBytes(3).toString('hex')}`;
}

/** The refs of a record. */
export type RecordRefName = 'before' | 'after' | 'ended';

/** The ref of a record's `before`, `after` or `ended` commit. */
export function recordRef(key: string, which: RecordRefName): string {
  return `${PREFIX}${key}/${which}`;
}

/**
 * Point a record ref at `commit`. The store is always in git's files ref format (minicode
 * creates it and never packs its refs), so a ref is one file, written atomically here instead
 * of spawning `update-ref` on every tool call.
 */
export async function setRecordRef(gitDir: string, key: string, which: RecordRefName, commit: string): Promise<void> {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) throw new Error(`not a commit id: ${commit}`);
  const file = path.join(gitDir, ...recordRef(key, which).split('/'));
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${randomBytes(3).toString('hex')}.tmp`;
  await fs.writeFile(temp, commit + '\n', { mode: 0o600 });
  await fs.rename(temp, file);
}

/** Every record of the store, oldest first. */
export async function listRecords(gitDir: string): Promise<TurnRecord[]> {
  const { stdout } = await runGit(
    ['for-each-ref', '--format=%(refname)%00%(objectname)%00%(tree)%00%(subject)%00', PREFIX],
    { gitDir, cwd: gitDir },
  );
  const parts = splitNul(stdout.replace(/\n/g, ''));
  const byKey = new Map<string, TurnRecord>();
  const afters = new Map<string, { after: string; afterTree: string }>();
  const ended = new Set<string>();
  for (let i = 0; i + 3 < parts.length; i += 4) {
    const ref = parts[i]!;
    const commit = parts[i + 1]!;
    const tree = parts[i + 2]!;
    const rest = ref.slice(PREFIX.length);
    const slash = rest.lastIndexOf('/');
    const key = rest.slice(0, slash);
    const which = rest.slice(slash + 1);
    if (which === 'before') {
      const meta = parseSubject(parts[i + 3]!);
      if (meta) byKey.set(key, { key, ...meta, before: commit, beforeTree: tree });
    } else if (which === 'after') afters.set(key, { after: commit, afterTree: tree });
    else if (which === 'ended') ended.add(key);
  }
  for (const key of ended) {
    const record = byKey.get(key);
    if (record) record.ended = true;
  }
  for (const [key, after] of afters) {
    const record = byKey.get(key);
    if (record) Object.assign(record, after);
  }
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** A changed path with what the `to` side holds (mode `000000` when it has no such path). */
export interface RawChange extends FileChange {
  mode: string;
  object: string;
}

/** What changed from commit `from` to commit `to`, with the `to` side's modes and objects (no rename detection). */
export async function diffRaw(gitDir: string, from: string, to: string): Promise<RawChange[]> {
  if (from === to) return [];
  const { stdout } = await runGit(['diff-tree', '-r', '-z', '--no-renames', '--raw', '--no-abbrev', from, to], {
    gitDir,
    cwd: gitDir,
  });
  const parts = splitNul(stdout);
  const changes: RawChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    // ":<old mode> <new mode> <old id> <new id> <status>", then the path.
    const [, mode, , object, status] = parts[i]!.slice(1).split(' ');
    const file = parts[i + 1]!;
    changes.push({
      path: file,
      kind: status === 'A' ? 'create' : status === 'D' ? 'delete' : 'modify',
      mode: mode ?? '000000',
      object: object ?? '',
    });
  }
  return changes;
}

/** What changed from commit `from` to commit `to`, as file changes (no rename detection). */
export async function diffCommits(gitDir: string, from: string, to: string): Promise<FileChange[]> {
  return (await diffRaw(gitDir, from, to)).map((c) => ({ path: c.path, kind: c.kind }));
}
