/**
 * The store's share of the end-to-end pipeline, alone: the durable events of the recorded
 * pipeline corpus (test/corpus/pipeline-corpus.ts: one session per source, ~33 events each,
 * ~100 envelope/payload shapes) appended as bench/pipeline.ts appends them, with the event loop
 * turning every 64 KiB of input so that each turn's puts commit as one transaction. The
 * synthetic run of bench/store.ts has one session and a handful of shapes; this workload is
 * the one the pipeline's store cost comes from.
 */
import { createEnveloper, eventIdFor } from '../../lib/events/enveloper.js';
import { EVENT_REGISTRY } from '../../lib/events/registry.js';
import type { OutputEvent } from '../../lib/events/index.js';
import { buildPipelineCorpus, inputTurns } from '../../test/corpus/pipeline-corpus.js';

/** One session of the workload: its durable events and the input bytes it came from. */
export interface StoreSession {
  events: OutputEvent[];
  inputBytes: number;
}

/**
 * `sets` copies of the corpus (replicated to at least `minEvents` decoded events), each with its
 * own session ids (`store-<set>-<pass>-<source>`), so that every round writes new sessions.
 */
export function storeCorpusSets(
  minEvents: number,
  sets: number,
): { origin: string; sets: StoreSession[][]; durablePerSet: number } {
  const corpus = buildPipelineCorpus({ minEvents });
  const template = corpus.pass.map((p) => {
    const enveloper = createEnveloper({ sessionId: 'template' });
    return {
      events: p.drafts.map((d) => enveloper.wrap(d)).filter((e) => EVENT_REGISTRY[e.type].durable),
      inputBytes: p.source.bytes.length,
    };
  });
  const out: StoreSession[][] = [];
  for (let s = 0; s < sets; s++) {
    const set: StoreSession[] = [];
    for (let p = 0; p < corpus.passes; p++) {
      template.forEach((t, i) => {
        const sessionId = `store-${s}-${p}-${i}`;
        set.push({
          events: t.events.map((e) => ({ ...e, sessionId, eventId: eventIdFor(sessionId, e.seq) })),
          inputBytes: t.inputBytes,
        });
      });
    }
    out.push(set);
  }
  const durablePerSet = out[0]?.reduce((n, s) => n + s.events.length, 0) ?? 0;
  return { origin: corpus.origin, sets: out, durablePerSet };
}

/** Write one set through `put`, the event loop turning as in bench/pipeline.ts ({@link inputTurns}); then `flushed`. */
export async function writeSessions(
  set: readonly StoreSession[],
  put: (e: OutputEvent) => unknown,
  flushed: () => Promise<unknown>,
): Promise<void> {
  const afterInput = inputTurns();
  for (const session of set) {
    for (const e of session.events) put(e);
    const turn = afterInput(session.inputBytes);
    if (turn) await turn;
  }
  await flushed();
}
