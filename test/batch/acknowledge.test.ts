/**
 * A settled run hands its slot to the next line, and its record still waits for the store's
 * acknowledgement (docs/batch.md § Concurrency and limits): with `--concurrency 1` and the
 * first run's acknowledgement held back, the later lines run and are recorded first.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { baseUrlForOrigin } from '../../lib/decode/formats.js';
import type { ProviderFormat } from '../../lib/agent/conversation.js';
import { runLocalBatch } from '../../lib/batch/batch.js';
import { parseBatchInput } from '../../lib/batch/input.js';
import { createProgress } from '../../lib/batch/progress.js';
import { providerSettings } from '../../lib/agent/provider-settings.js';
import { runLimits } from '../../lib/agent/run-limits.js';
import { toolEnvironment } from '../../lib/agent/tool-environment.js';
import { promptSettings } from '../../lib/agent/prompt-settings.js';
import type { LineSetup } from '../../lib/batch/run-line.js';
import { loadCassette } from '../../lib/replay/cassette.js';
import { startReplayServer } from '../../lib/replay/server.js';
import { openStore, type EventStore } from '../../lib/store/index.js';
import { CASSETTE, makeWorkdir, readRecords, recordIds } from './helpers.js';

const closing: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const c of closing.reverse()) await c.close();
});

describe('a run waiting for its acknowledgement', () => {
  it('lets the next line run and is recorded only once the store acknowledged its session', async () => {
    const cassette = loadCassette(CASSETTE);
    const format = cassette.manifest.format as ProviderFormat;
    const server = await startReplayServer(CASSETTE, { order: 'by-turn', recordRequests: false });
    closing.push(server);
    const setup: LineSetup = {
      provider: providerSettings({
        format,
        model: cassette.manifest.model ?? 'replay',
        baseUrl: baseUrlForOrigin(format, server.origin),
        apiKey: 'replay',
      }),
      limits: runLimits(),
      environment: toolEnvironment(process.cwd()),
      prompting: promptSettings(),
    };
    const w = makeWorkdir(3);
    const real = openStore({ dir: w.store });
    closing.push(real);
    // The store as the batch sees it, with the first session's acknowledgement held until released.
    const sessions: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let thirdStarted!: () => void;
    const third = new Promise<void>((resolve) => (thirdStarted = resolve));
    const store: EventStore = {
      ...real,
      append(event, line) {
        if (!sessions.includes(event.sessionId)) {
          sessions.push(event.sessionId);
          if (sessions.length === 3) thirdStarted();
        }
        return real.append(event, line);
      },
      async flushed(sessionId) {
        if (sessionId !== undefined && sessionId === sessions[0]) await released;
        return real.flushed(sessionId);
      },
    };
    // Records in the order the batch accepted them; the later two arrive while p0 waits.
    const accepted: string[] = [];
    let othersRecorded!: () => void;
    const others = new Promise<void>((resolve) => (othersRecorded = resolve));
    const progress = createProgress({ mode: 'none', write: () => {} });
    const batch = runLocalBatch({
      inputPath: 'prompts.jsonl',
      input: parseBatchInput(
        ['p0', 'p1', 'p2'].map((id, i) => JSON.stringify({ id, prompt: `What does README.md say? (${i})` })).join('\n'),
      ),
      outDir: w.out,
      concurrency: 1,
      progress: {
        ...progress,
        record(record) {
          accepted.push(record.id);
          if (accepted.includes('p1') && accepted.includes('p2')) othersRecorded();
          progress.record(record);
        },
      },
      setup: async () => setup,
      baseDir: w.dir,
      cwd: w.dir,
      store,
    });
    // The later lines run, and are recorded, while the first still waits for its acknowledgement.
    await third;
    await others;
    expect(accepted).toEqual(['p1', 'p2']);
    release();
    const summary = await batch;
    expect(summary).toMatchObject({ completed: 3, failed: 0, pending: 0 });
    // p0's record came last: it waited for its acknowledgement, the others did not wait for it.
    expect(recordIds(w.out).results).toEqual(['p1', 'p2', 'p0']);
    const p0 = readRecords<{ id: string; sessionId: string }>(w.out).find((r) => r.id === 'p0');
    expect(p0?.sessionId).toBe(sessions[0]);
    expect(real.readSession(sessions[0] as string).at(-1)?.type).toBe('session.ended');
  });
});
