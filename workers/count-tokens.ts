/**
 * Worker: exact token count with the o200k_base vocabulary (shipped inside gpt-tokenizer,
 * works offline). Default export `(task) => result`; never throws across the boundary.
 */
import { countTokens as countRaw } from 'gpt-tokenizer/encoding/o200k_base';
import { countBounded } from '../lib/control/exact-count.js';
import { failure, type CountTokensTask, type CountTokensValue, type WorkerResult } from '../lib/control/tasks.js';
import { toPlainError } from '../lib/errors.js';

const decoder = new TextDecoder();
const countTokens = (text: string): number => countBounded(text, countRaw);

/** Count the tokens of `task.bytes` (UTF-8) or `task.text`. */
export default function countTokensTask(task: CountTokensTask): WorkerResult<CountTokensValue> {
  try {
    let text: string;
    if (task && task.bytes instanceof ArrayBuffer) text = decoder.decode(task.bytes);
    else if (task && typeof task.text === 'string') text = task.text;
    else return failure('MINICODE_E_WORKER_INPUT', 'count-tokens needs `bytes` (ArrayBuffer) or `text` (string)');
    return { ok: true, value: { tokens: countTokens(text), chars: text.length, encoding: 'o200k_base' } };
  } catch (error) {
    return { ok: false, error: toPlainError(error) };
  }
}
