/**
 * The worker side of worker-ingest.ts: for each `{ type: 'run', file, format }` it reads the
 * recorded stream in `ingest`'s reads, decodes and scrubs it, and posts each read's scrubbed
 * drafts (`{ drafts, end }`). At most `credit` batches go out unacknowledged; the main thread
 * acknowledges one with `{ type: 'ack' }`, the backpressure a pipeline entry would give. One
 * thread serves every run, so that its code is as warm as the main thread's.
 */
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { EventDraft } from '../../lib/events/index.js';
import { decoderFor, INGEST_READ_BYTES } from '../../lib/pipeline/ingest.js';
import { createEventScrubber } from '../../lib/scrub/scrub-stage.js';

const { credit: initialCredit } = workerData as { credit: number };
const port = parentPort as NonNullable<typeof parentPort>;
let credit = initialCredit;
let wake: (() => void) | undefined;
port.on('message', (m: { type: 'ack' } | { type: 'run'; file: string; format: string }) => {
  if (m.type === 'run') {
    void ingest(m.file, m.format);
    return;
  }
  credit++;
  wake?.();
});

async function ingest(file: string, format: string): Promise<void> {
  credit = initialCredit;
  const scrubber = createEventScrubber({});
  // As runIngest: `session.started` before the first decoded draft, scrubbed like any other.
  let pending: EventDraft[] = [
    { type: 'session.started', payload: { origin: 'ingest', format }, fidelity: 'synthetic' },
  ];
  const decoder = decoderFor(format)((d) => pending.push(d));
  const scrubAll = (drafts: EventDraft[]): EventDraft[] => {
    const out: EventDraft[] = [];
    for (const d of drafts) for (const x of scrubber.push(d)) out.push(x);
    return out;
  };
  const fd = fs.openSync(file, 'r');
  const buffer = Buffer.allocUnsafe(INGEST_READ_BYTES);
  for (;;) {
    const n = fs.readSync(fd, buffer, 0, buffer.length, null);
    if (n === 0) break;
    decoder.feed(buffer.subarray(0, n));
    const drafts = scrubAll(pending);
    pending = [];
    while (credit === 0) await new Promise<void>((resolve) => (wake = resolve));
    credit--;
    port.postMessage({ drafts, end: false });
  }
  fs.closeSync(fd);
  decoder.end();
  const last = scrubAll(pending);
  for (const d of scrubber.end()) last.push(d);
  port.postMessage({ drafts: last, end: true });
}
