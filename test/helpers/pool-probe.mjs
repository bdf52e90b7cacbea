/**
 * A pool task for test/control/pool-inline.test.ts: on a pool thread, count and fold through
 * the product's own helpers (compiled, as the pool runs them) and say whether that started a
 * pool of its own. Default export `(task) => result`, as every pool task.
 */
import { isPoolStarted, onPoolThread } from '../../dist/lib/control/pool.js';
import { compactInPool, countTokensExact } from '../../dist/lib/control/offload.js';

/** Count `task.text` and fold `task.messages` on this thread. */
export default async function probe(task) {
  const count = await countTokensExact(task.text);
  const fold = await compactInPool(task.messages, { keepRecentUnits: 2 });
  return {
    onPoolThread: onPoolThread(),
    poolStarted: isPoolStarted(),
    count,
    fold: fold.ok ? { ok: true, value: { ...fold.value, messages: fold.value.messages.length } } : fold,
  };
}
