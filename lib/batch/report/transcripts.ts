/**
 * Each line's transcript for the report: the conversation its stored session holds (the user's
 * prompt, the model's text and tool calls, each tool's result as the model saw it), rebuilt from
 * the durable events by the same code that reopens a session (`lib/agent/history.ts`), bounded
 * for the page. The store is opened read-only; a store that is not there, or a session it does
 * not hold (another machine's, a store since cleared), leaves that line without a transcript.
 */
import fs from 'node:fs';
import { conversationFromEvents } from '../../agent/history.js';
import { MinicodeError } from '../../errors.js';
import { dropExpected } from '../../debug.js';
import type { BatchRecord } from '../records.js';
import { clip } from './escape.js';

/** Characters of one message or tool result kept; default 2,000. */
export const TRANSCRIPT_TEXT_CHARS = 2000;
/** Messages kept per line; default 200 (the rest is counted). */
export const TRANSCRIPT_MESSAGES = 200;

/** One step of a transcript as the page shows it. */
export type TranscriptEntry =
  | { role: 'user' | 'assistant'; text: string }
  | { role: 'call'; name: string; arguments: string }
  | { role: 'result'; name: string; text: string; isError: boolean }
  | { role: 'more'; count: number };

/** The bounded transcript of one session's events. Pure. */
export function transcriptOf(events: Parameters<typeof conversationFromEvents>[0]): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  for (const m of conversationFromEvents(events).messages) {
    if (m.role === 'user') entries.push({ role: 'user', text: clip(m.text, TRANSCRIPT_TEXT_CHARS) });
    else if (m.role === 'tool')
      entries.push({
        role: 'result',
        name: m.name,
        text: clip(m.content, TRANSCRIPT_TEXT_CHARS),
        isError: m.isError === true,
      });
    else {
      if (m.text) entries.push({ role: 'assistant', text: clip(m.text, TRANSCRIPT_TEXT_CHARS) });
      for (const c of m.toolCalls ?? [])
        entries.push({ role: 'call', name: c.name, arguments: clip(c.argumentsText, TRANSCRIPT_TEXT_CHARS) });
    }
  }
  if (entries.length <= TRANSCRIPT_MESSAGES) return entries;
  return [...entries.slice(0, TRANSCRIPT_MESSAGES), { role: 'more', count: entries.length - TRANSCRIPT_MESSAGES }];
}

/** The transcripts of the records' sessions found in the store at `storeDir`, by session id. */
export async function loadTranscripts(
  records: readonly BatchRecord[],
  storeDir: string,
): Promise<Map<string, TranscriptEntry[]>> {
  const found = new Map<string, TranscriptEntry[]>();
  const ids = [...new Set(records.map((r) => r.sessionId).filter((id): id is string => typeof id === 'string'))];
  if (ids.length === 0 || !fs.existsSync(storeDir)) return found;
  const { openStore } = await import('../../store/store.js');
  let store: ReturnType<typeof openStore>;
  try {
    store = openStore({ dir: storeDir, readOnly: true });
  } catch (error) {
    // An unreadable store leaves the lines without transcripts; the page says where it looked.
    if (!(error instanceof MinicodeError)) throw error;
    dropExpected('batch report: opening the store for transcripts', error);
    return found;
  }
  try {
    for (const id of ids) {
      const events = store.readSession(id);
      if (events.length > 0) found.set(id, transcriptOf(events));
    }
  } finally {
    await store.close();
  }
  return found;
}
