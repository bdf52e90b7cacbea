import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EVENT_REGISTRY } from '../../lib/events/index.js';
import { rebuild } from '../../lib/reducer/index.js';
import { openStore } from '../../lib/store/index.js';
import { mulberry32 } from '../../lib/random.js';
import { syntheticRun } from '../corpus/synthetic-run.js';
import { ROOT } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { compiledHelper } from '../helpers/compiled.js';

// The writer is compiled to JS (test/helpers/compiled.ts): a real process, killed for real.
const WRITER = compiledHelper('store-writer');
const KILLS = 24;
/** Steps the writer is asked for: far more than it writes before its kill, so it is always mid-run. */
const STEPS = 100_000;
/** Most acknowledged flushes a round waits for before the kill. */
const MAX_ACKS = 6;

interface Writer {
  child: ChildProcessWithoutNullStreams;
  /** Highest durable seq acknowledged (printed after flushed() resolved). */
  acked: () => number;
  /** How many acknowledgements have arrived. */
  acks: () => number;
  ready: Promise<void>;
  exited: Promise<NodeJS.Signals | null>;
}

function startWriter(dir: string, sessionId: string, batch: number): Writer {
  const child = spawn(process.execPath, [WRITER, dir, sessionId, String(STEPS), String(batch)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let acked = -1;
  let acks = 0;
  let buffered = '';
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (line === 'ready') onReady();
      else if (line.startsWith('ack ')) {
        acked = Number(line.slice(4));
        acks++;
      }
    }
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
  return { child, acked: () => acked, acks: () => acks, ready, exited };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-crash-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the store under SIGKILL', () => {
  it(`keeps every acknowledged event across ${KILLS} kills at seeded points mid-run, reopens, and rebuilds interrupted`, async () => {
    // Seeded so the kill points reproduce: a batch size and a number of acknowledged flushes.
    const random = mulberry32(0x5eed);
    for (let i = 0; i < KILLS; i++) {
      const sessionId = `crash-${i}`;
      const writer = startWriter(dir, sessionId, 10 + Math.floor(random() * 190));
      const wantAcks = 1 + Math.floor(random() * MAX_ACKS);
      let ended = false;
      void writer.exited.then(() => (ended = true));
      await writer.ready;
      await waitFor(() => ended || writer.acks() >= wantAcks, { what: `round ${i}: ${wantAcks} acknowledged flushes` });
      expect(ended, `round ${i}: the writer ended before its kill: ${writer.child.stderr.read() ?? ''}`).toBe(false);
      // A second process (this one) reads the session while the child is still writing.
      const ackedBefore = writer.acked();
      const reader = openStore({ dir, readOnly: true });
      const seen = reader.readSession(sessionId);
      await reader.close();
      expect(seen.some((e) => e.seq === ackedBefore)).toBe(true);
      const acked = writer.acked();
      writer.child.kill('SIGKILL');
      expect(await writer.exited).toBe('SIGKILL');

      const store = openStore({ dir }); // reopen for writing, as the next run would
      const events = store.readSession(sessionId);
      const seqs = new Set(events.map((e) => e.seq));
      // Every durable event up to the acknowledged seq is present (which ones are durable comes
      // from the event registry over the same deterministic run the writer wrote), nothing is torn.
      for (const e of events) expect(EVENT_REGISTRY[e.type].durable).toBe(true);
      const missing = durableSeqsUpTo(sessionId, acked).filter((seq) => !seqs.has(seq));
      expect(missing).toEqual([]);
      // A batch is one value: whatever the kill cut, the stored events are a gap-free prefix.
      const last = Math.max(...seqs);
      expect(events.map((e) => e.seq)).toEqual(durableSeqsUpTo(sessionId, last));
      const state = rebuild(events, { sessionId });
      expect(state.run.outcome).toBe('interrupted');
      expect(Object.values(state.tools).every((t) => !['started', 'running'].includes(t.status))).toBe(true);
      // Acknowledged events exist, so their session must be in the index, and shown interrupted.
      expect(store.getSession(sessionId)?.outcome).toBe('interrupted');
      await store.close();
    }
  }, 180_000);
});

/** The seqs of the writer's run, up to `last`, whose event type the registry marks durable. */
function durableSeqsUpTo(sessionId: string, last: number): number[] {
  const seqs: number[] = [];
  for (const event of syntheticRun({ sessionId, steps: STEPS })) {
    if (event.seq > last) break;
    if (EVENT_REGISTRY[event.type].durable) seqs.push(event.seq);
  }
  return seqs;
}
