/**
 * Worker: mechanical compaction of a transcript (NDJSON bytes in, NDJSON bytes out, both
 * moved rather than copied). Default export `(task) => result`; never throws.
 */
import { foldTranscript } from '../lib/control/fold.js';
import { failure, type CompactTask, type CompactValue, type WorkerResult } from '../lib/control/tasks.js';
import { decodeTranscript, encodeTranscript, moveWith, ownBuffer } from '../lib/control/wire.js';
import { toPlainError } from '../lib/errors.js';

/** Fold the transcript in `task.bytes` with `task.options`. */
export default function compactTask(task: CompactTask): WorkerResult<CompactValue> {
  try {
    if (!task || !(task.bytes instanceof ArrayBuffer)) {
      return failure('MINICODE_E_WORKER_INPUT', 'compact needs `bytes` (NDJSON transcript as ArrayBuffer)');
    }
    const { messages, badLines } = decodeTranscript(task.bytes);
    const folded = foldTranscript(messages, task.options ?? {});
    const bytes = ownBuffer(encodeTranscript(folded.messages));
    const result: WorkerResult<CompactValue> = {
      ok: true,
      value: {
        bytes,
        beforeTokens: folded.beforeTokens,
        afterTokens: folded.afterTokens,
        removedMessages: folded.removedMessages,
        removedUnits: folded.removedUnits,
        foldedMessages: folded.foldedMessages,
        removedImages: folded.removedImages,
        changed: folded.changed,
        badLines: badLines.length,
      },
    };
    return moveWith(result, [bytes]);
  } catch (error) {
    return { ok: false, error: toPlainError(error) };
  }
}
