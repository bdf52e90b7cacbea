/**
 * The peer of bench/pipeline.ts: what a user would assemble from off-the-shelf parts to turn the
 * same recorded streams into stored, scrubbed JSON events, without minicode:
 *   eventsource-parser (SSE) or a line splitter (JSONL/NDJSON) -> JSON.parse ->
 *   a switch-based reducer -> an envelope object -> JSON.stringify ->
 *   one combined regex of the same secret rules over the line -> output + raw `lmdb` async puts.
 * It does less than the pipeline (no provider-neutral decoding, no control-sequence
 * sanitising, no streaming secret holdback across deltas, every event stored), so it is a
 * generous peer.
 */
import { createParser } from 'eventsource-parser';
import { open, type RootDatabase } from 'lmdb';
import { SCHEMA_NAME } from '../../lib/events/enums.js';
import type { PreparedSource } from '../../test/corpus/pipeline-corpus.js';

/** A store the peer writes raw puts to. */
export function openPeerStore(dir: string): RootDatabase {
  return open({ path: dir, compression: false });
}

/** The state a hand-written reducer keeps: counters and the text seen, by event type. */
interface PeerState {
  events: number;
  text: number;
  tools: number;
  errors: number;
  done: boolean;
}

function reducePeer(state: PeerState, type: string, value: Record<string, unknown>): void {
  state.events++;
  switch (type) {
    case 'content_block_delta':
    case 'response.output_text.delta':
    case 'item.updated':
      state.text += typeof value.delta === 'string' ? value.delta.length : 1;
      break;
    case 'content_block_start':
    case 'response.output_item.added':
    case 'item.started':
      state.tools++;
      break;
    case 'error':
      state.errors++;
      break;
    case 'message_stop':
    case 'response.completed':
    case 'turn.completed':
    case 'result':
      state.done = true;
      break;
    default:
      break;
  }
}

/** The peer's framing of one session's text: SSE (eventsource-parser) or JSON lines. */
export type PeerFraming = 'sse' | 'lines';

/** One session of the peer assembly, fed text as it arrives. */
export interface PeerFeed {
  feed(text: string): void;
  /** The end of the input; returns the number of records handled. */
  end(): number;
}

/** Start one session of the peer assembly: each record parsed, reduced, enveloped, stringified, scrubbed, output and put. */
export function createPeerFeed(
  framing: PeerFraming,
  sessionId: string,
  secrets: RegExp,
  db: RootDatabase,
  out: (line: string) => void,
): PeerFeed {
  const state: PeerState = { events: 0, text: 0, tools: 0, errors: 0, done: false };
  let seq = 0;
  const timestamp = new Date().toISOString();
  const handle = (text: string): void => {
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(text) as Record<string, unknown>;
    } catch {
      value = { text };
    }
    const type = typeof value.type === 'string' ? value.type : 'record';
    reducePeer(state, type, value);
    const s = seq++;
    const envelope = {
      schema: SCHEMA_NAME,
      eventId: `${sessionId}:${s}`,
      seq: s,
      type,
      timestamp,
      sessionId,
      payload: value,
    };
    secrets.lastIndex = 0;
    const line = JSON.stringify(envelope).replace(secrets, '[REDACTED]');
    out(line + '\n');
    void db.put(`${sessionId}:${String(s).padStart(8, '0')}`, envelope);
  };
  if (framing === 'sse') {
    const parser = createParser({ onEvent: (e) => handle(e.data) });
    return {
      feed: (text) => parser.feed(text),
      end: () => state.events,
    };
  }
  // A line splitter that keeps the partial last line across chunks (pieces joined once).
  let tail: string[] = [];
  return {
    feed(s) {
      let from = 0;
      for (let nl = s.indexOf('\n'); nl !== -1; nl = s.indexOf('\n', from)) {
        const line = tail.length > 0 ? tail.join('') + s.slice(from, nl) : s.slice(from, nl);
        tail = [];
        if (line.trim() !== '') handle(line);
        from = nl + 1;
      }
      if (from < s.length) tail.push(s.slice(from));
    },
    end() {
      if (tail.length > 0 && tail.join('').trim() !== '') handle(tail.join(''));
      tail = [];
      return state.events;
    },
  };
}

/** Run one source through the peer assembly; returns the number of records handled. */
export function runPeerSource(
  prepared: PreparedSource,
  sessionId: string,
  secrets: RegExp,
  db: RootDatabase,
  out: (line: string) => void,
): number {
  const sse = prepared.source.kind === 'provider' && prepared.source.format !== 'ollama';
  const peer = createPeerFeed(sse ? 'sse' : 'lines', sessionId, secrets, db, out);
  const text = new TextDecoder();
  for (const chunk of prepared.chunks) peer.feed(text.decode(chunk, { stream: true }));
  peer.feed(text.decode());
  return peer.end();
}
