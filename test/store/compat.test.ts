import { describe, expect, it } from 'vitest';
import { createEnveloper, draft, EVENT_REGISTRY, type OutputEvent } from '../../lib/events/index.js';
import { openStore } from '../../lib/store/index.js';
import { syntheticRun } from '../corpus/synthetic-run.js';
import { scratchDirs } from '../helpers/tmp-dirs.js';

const tmpDir = scratchDirs('minicode-store-compat-');

describe('a session continued by a later writer', () => {
  it('counts the stored events of a session that a later writer continues', async () => {
    const dir = tmpDir();
    const first = openStore({ dir });
    const begun = [...syntheticRun({ sessionId: 'cont', steps: 2, complete: false })];
    for (const e of begun) first.append(e);
    await first.close();
    const stored = begun.filter((e) => EVENT_REGISTRY[e.type].durable).length;

    const second = openStore({ dir });
    const last = begun[begun.length - 1] as OutputEvent;
    const env = createEnveloper({ sessionId: 'cont', startSeq: last.seq + 1 });
    second.append(env.wrap(draft('task.completed', { taskId: 'task_1', reason: 'completed', steps: 2 })));
    second.append(env.wrap(draft('session.ended', { outcome: 'completed', reason: 'completed' })));
    await second.close();

    const reader = openStore({ dir, readOnly: true });
    expect(reader.getSession('cont')).toMatchObject({
      outcome: 'completed',
      eventCount: stored + 2,
      lastSeq: last.seq + 2,
      origin: 'exec',
    });
    expect(reader.getSession('cont')?.promptDigest).toMatch(/^sha256:/);
    await reader.close();
  });
});
