/**
 * The session index: one small record per session (id, start, end, outcome, identity, prompt
 * digest, event count) so that `minicode sessions` never scans events. The writer keeps the
 * reducer's state of each open session and derives the entry from it, so the index and a
 * rebuild apply the same outcome rule. The entry is rewritten at most once per event-loop turn
 * per session (in the same LMDB batch as the events), so a crash loses at most that turn.
 */
import { createHash } from 'node:crypto';
import type { OutputEvent } from '../events/index.js';
import { copyDefined, type ReducerState, type RunOutcomeState } from '../reducer/index.js';
import { pidAlive } from '../pid-alive.js';

/** One row of the session index. */
export interface SessionIndexEntry {
  sessionId: string;
  outcome: RunOutcomeState;
  reason?: string;
  startedAt?: string;
  endedAt?: string;
  origin?: string;
  provider?: string;
  model?: string;
  agent?: string;
  format?: string;
  /** sha256 of the first prompt (from session.started, else the first task or user message). */
  promptDigest?: string;
  /** The first prompt (a task's or the user's first message), on one line and cut to {@link MAX_TITLE_CHARS}. */
  title?: string;
  /** Durable events stored when the entry was last written. */
  eventCount: number;
  lastSeq?: number;
  /** Pid of the process writing the session while it is open: a dead writer means interrupted. */
  writerPid?: number;
  /** A child session (the `task` tool): the session and tool call that started it (`sessions --tree`, nested `replay`). */
  parentSessionId?: string;
  parentToolCallId?: string;
}

/** sha256 digest of a prompt, as the index stores it. */
export function promptDigest(text: string): string {
  return 'sha256:' + createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Most characters of a session's title; default 80. */
export const MAX_TITLE_CHARS = 80;

/**
 * A session's title from its first prompt: the words of its first line, without the blocks a
 * chat message carries after it (attached files, a `!command`'s output), cut with `…`.
 */
export function titleOf(prompt: string): string {
  const words = prompt
    .replace(/\n\n<(?:file|shell) [\s\S]*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
  return words.length <= MAX_TITLE_CHARS ? words : `${words.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…`;
}

/** The prompt an event carries, for the digest when session.started had none. */
export function promptOf(event: OutputEvent): string | undefined {
  if (event.type === 'task.started') return event.payload.prompt;
  if (event.type === 'user.message.received') return event.payload.text;
  return undefined;
}

/** Build the index entry of a session from its reducer state. */
export function indexEntryOf(
  state: ReducerState,
  extra: {
    digest?: string | undefined;
    title?: string | undefined;
    writerPid?: number | undefined;
    eventCount?: number;
    lastSeq?: number | undefined;
  },
): SessionIndexEntry {
  const s = state.session;
  const entry: SessionIndexEntry = {
    sessionId: state.sessionId,
    outcome: state.run.outcome,
    eventCount: extra.eventCount ?? state.durableEvents,
  };
  if (state.run.reason !== undefined) entry.reason = state.run.reason;
  copyDefined(entry, s, [
    'startedAt',
    'endedAt',
    'origin',
    'provider',
    'model',
    'agent',
    'format',
    'parentSessionId',
    'parentToolCallId',
  ]);
  const digest = s.promptDigest ?? extra.digest;
  if (digest !== undefined) entry.promptDigest = digest;
  if (extra.title !== undefined) entry.title = extra.title;
  const lastSeq = extra.lastSeq ?? state.lastSeq;
  if (lastSeq !== undefined) entry.lastSeq = lastSeq;
  if (extra.writerPid !== undefined && s.endedAt === undefined) entry.writerPid = extra.writerPid;
  return entry;
}

/**
 * What a reader should show: a session still `running` whose writer is gone stopped before its
 * terminal event, so it reads as `interrupted` (the stored entry itself is not rewritten).
 */
export function effectiveEntry(
  entry: SessionIndexEntry,
  alive: (pid: number) => boolean = pidAlive,
): SessionIndexEntry {
  if (entry.outcome !== 'running') return entry;
  if (entry.writerPid !== undefined && alive(entry.writerPid)) return entry;
  return { ...entry, outcome: 'interrupted' };
}
