/**
 * Worker: estimate a whole transcript (NDJSON bytes) plus its fixed overhead, by the density
 * table or exactly with o200k. Default export `(task) => result`; never throws.
 */
import { countTokens as countRaw } from 'gpt-tokenizer/encoding/o200k_base';
import { countBounded } from '../lib/control/exact-count.js';
import { DEFAULT_DENSITIES } from '../lib/control/density.js';
import { estimateFixedTokens, estimateMessagesTokens } from '../lib/control/estimate.js';
import {
  failure,
  type EstimateContextTask,
  type EstimateContextValue,
  type WorkerResult,
} from '../lib/control/tasks.js';
import type { FixedContext, TranscriptMessage } from '../lib/control/transcript.js';
import { decodeTranscript } from '../lib/control/wire.js';
import { toPlainError } from '../lib/errors.js';

const countTokens = (text: string): number => countBounded(text, countRaw);

function exactMessage(m: TranscriptMessage, perMessage: number): number {
  switch (m.role) {
    case 'system':
    case 'user':
      return perMessage + countTokens(m.text);
    case 'tool':
      return perMessage + countTokens(m.content);
    case 'assistant': {
      let n = perMessage + countTokens(m.text) + (m.reasoning ? countTokens(m.reasoning) : 0);
      for (const c of m.toolCalls ?? []) n += 3 + countTokens(c.name) + countTokens(c.argumentsText);
      return n;
    }
  }
}

function exactFixed(fixed: FixedContext, perMessage: number): number {
  let n = fixed.system ? perMessage + countTokens(fixed.system) : 0;
  for (const s of fixed.toolSchemas) n += countTokens(s);
  return n;
}

/** Estimate the context size of the transcript in `task.bytes`. */
export default function estimateContextTask(task: EstimateContextTask): WorkerResult<EstimateContextValue> {
  try {
    if (!task || !(task.bytes instanceof ArrayBuffer)) {
      return failure('MINICODE_E_WORKER_INPUT', 'estimate-context needs `bytes` (NDJSON transcript as ArrayBuffer)');
    }
    const mode = task.mode ?? 'heuristic';
    const table = task.densities ?? DEFAULT_DENSITIES;
    const fixed = task.fixed ?? { system: '', toolSchemas: [] };
    const { messages, badLines } = decodeTranscript(task.bytes);
    let fixedTokens: number;
    let messageTokens = 0;
    if (mode === 'exact') {
      fixedTokens = exactFixed(fixed, table.perMessage);
      for (const m of messages) messageTokens += exactMessage(m, table.perMessage);
    } else {
      fixedTokens = estimateFixedTokens(fixed, table);
      messageTokens = estimateMessagesTokens(messages, table);
    }
    return {
      ok: true,
      value: {
        mode,
        tokens: fixedTokens + messageTokens,
        fixedTokens,
        messageTokens,
        messages: messages.length,
        badLines: badLines.length,
      },
    };
  } catch (error) {
    return { ok: false, error: toPlainError(error) };
  }
}
