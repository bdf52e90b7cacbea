import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EVENT_REGISTRY } from '../../lib/events/index.js';
import { rebuild } from '../../lib/reducer/index.js';
import { openStore } from '../../lib/store/index.js';
import { mulberry32 } from '../../lib/random.js';
import { ROOT } from '../helpers/cli.js';

// The writer is compiled JS (`npm test` builds first): a real process, killed for real.
const WRITER = path.join(ROOT, 'dist/bench/support/store-writer.js');
const KILLS = 24;

interface Writer {
  child: ChildProcessWithoutNullStreams;
  /** Highest durable seq acknowledged (printed after flushed() resolved). */
  acked: () => number;
  ready: Promise<void>;
  exited: Promise<NodeJS.Signals | null>;
}

function startWriter(dir: string, sessionId: string, batch: number): Writer {
  const child = spawn(process.execPath, [WRITER, dir, sessionId, '100000', String(batch)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let acked = -1;
  let buffered = '';
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (line === 'ready') onReady();
      else if (line.startsWith('ack ')) acked = Number(line.slice(4));
    }
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
  return { child, acked: () => acked, ready, exited };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-crash-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the store under SIGKILL', () => {
  it(`keeps every acknowledged event across ${KILLS} kills at random points, reopens, and rebuilds interrupted`, async () => {
    // Seeded so the kill points reproduce.
    const random = mulberry32(0x5eed);
    let readWhileWriting = 0;
    let killedAfterAck = 0;
    for (let i = 0; i < KILLS; i++) {
      const sessionId = `crash-${i}`;
      const writer = startWriter(dir, sessionId, 10 + Math.floor(random() * 190));
      await writer.ready;
      await sleep(20 + Math.floor(random() * 200));
      // A second process (this one) reads the session while the child is still writing.
      if (writer.child.exitCode === null) {
        const ackedBefore = writer.acked();
        const reader = openStore({ dir, readOnly: true });
        const seen = reader.readSession(sessionId);
        await reader.close();
        expect(seen.length).toBeGreaterThanOrEqual(ackedBefore >= 0 ? 1 : 0);
        if (ackedBefore >= 0) expect(seen.some((e) => e.seq === ackedBefore)).toBe(true);
        readWhileWriting++;
      }
      const acked = writer.acked();
      if (acked > 0) killedAfterAck++;
      writer.child.kill('SIGKILL');
      expect(await writer.exited).toBe('SIGKILL');

      const store = openStore({ dir }); // reopen for writing, as the next run would
      const events = store.readSession(sessionId);
      const seqs = new Set(events.map((e) => e.seq));
      // Every durable event up to the acknowledged seq is present, and nothing is torn.
      const expectedDurable = events.filter((e) => e.seq <= acked);
      for (const e of expectedDurable) expect(EVENT_REGISTRY[e.type].durable).toBe(true);
      const missing: number[] = [];
      for (let seq = 0; seq <= acked; seq++) {
        // Live seqs (deltas, progress) are never stored; the synthetic run's layout says which.
        if (!isLiveSeq(seq) && !seqs.has(seq)) missing.push(seq);
      }
      expect(missing).toEqual([]);
      const state = rebuild(events, { sessionId });
      expect(state.run.outcome).toBe('interrupted');
      expect(Object.values(state.tools).every((t) => !['started', 'running'].includes(t.status))).toBe(true);
      expect(store.getSession(sessionId)?.outcome ?? 'interrupted').toBe('interrupted');
      await store.close();
    }
    expect(readWhileWriting).toBeGreaterThan(KILLS / 2);
    expect(killedAfterAck).toBeGreaterThan(KILLS / 2);
  });
});

/** In the synthetic run, seq 0-1 start the run and each 10-event step has live events at offsets 1-3 and 6. */
function isLiveSeq(seq: number): boolean {
  if (seq < 2) return false;
  const offset = (seq - 2) % 10;
  return offset === 1 || offset === 2 || offset === 3 || offset === 6;
}
