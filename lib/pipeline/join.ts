/**
 * Joins the pipeline's stages: each stream piped into the next, one promise for the whole.
 * It keeps the contract of `stream.pipeline` that the run pipeline relies on:
 *
 * - backpressure: `pipe` pauses a stage while the next one is full;
 * - the first error of any stage (an `error` event, or a stage that closes before it ended,
 *   `ERR_STREAM_PREMATURE_CLOSE`) destroys every stage with that error and rejects the promise;
 *   a later error is ignored;
 * - the promise resolves once the last stage has finished (every stage before it has ended).
 *
 * Why not `stream.pipeline`: a run pipeline lives for one session, and `batch` runs thousands of
 * short sessions. `stream.pipeline` costs per call what a short session's events cost: an
 * `AbortController` whose `abort()` at the end builds a `DOMException` (a stack trace) and
 * dispatches an event, and two end-of-stream watchers per stage. Here a stage costs three
 * listeners and a `pipe`. bench/pipeline.ts (many sessions) measures the difference.
 */
import type { Readable, Writable } from 'node:stream';

/** A stage: a readable head, duplex stages, a writable tail. */
type Stage = Readable | Writable | NodeJS.ReadWriteStream;

/** Node's code for a stream that closed before it ended, as `stream.pipeline` reports it. */
export const PREMATURE_CLOSE = 'ERR_STREAM_PREMATURE_CLOSE';

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: PREMATURE_CLOSE });
}

/** Whether a stage that emitted `close` got to its end first (its readable side ended, its writable side finished). */
function completed(stage: Stage): boolean {
  const s = stage as Partial<Readable & Writable>;
  return s.readableEnded !== false && s.writableFinished !== false;
}

/** Pipe `stages` in order; resolves when the last has finished, rejects with the first error. */
export function joinStages(stages: readonly Stage[]): Promise<void> {
  if (stages.length < 2) throw new TypeError('joinStages: at least two stages');
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      for (const stage of stages) (stage as Readable).destroy(error);
      reject(error);
    };
    const onClose = function (this: Stage): void {
      if (!settled && !completed(this)) fail(prematureClose());
    };
    const lastIndex = stages.length - 1;
    for (let i = 0; i <= lastIndex; i++) {
      const stage = stages[i] as Readable;
      stage.on('error', fail);
      stage.on('close', onClose);
      if (i < lastIndex) stage.pipe(stages[i + 1] as Writable);
    }
    const last = stages[lastIndex] as Writable;
    last.once('finish', () => {
      if (settled) return;
      settled = true;
      resolve();
    });
  });
}
