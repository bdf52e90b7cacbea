/** On a pool thread, counting and folding run inline: the one pool never starts a second one. */
import path from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, describe, expect, it } from 'vitest';
import { foldTranscript } from '../../lib/control/fold.js';
import { closePool, getPool, isPoolStarted, onPoolThread } from '../../lib/control/pool.js';
import { ROOT } from '../helpers/cli.js';
import { transcript } from './helpers/transcripts.js';

afterAll(closePool);

const PROBE = path.join(ROOT, 'test/helpers/pool-probe.mjs');

describe('a task on a pool thread', () => {
  it('counts and folds inline, with the same results, and starts no pool of its own', async () => {
    expect(onPoolThread()).toBe(false);
    // Large enough that the text is moved as bytes and the fold has work to do.
    const text = 'The pool runs this inline. '.repeat(4_000);
    const messages = transcript(40, { resultChars: 8_000 });
    const r = (await getPool().run({ text, messages }, { filename: PROBE })) as {
      onPoolThread: boolean;
      poolStarted: boolean;
      count: { ok: boolean; value?: { tokens: number } };
      fold: { ok: boolean; value?: { changed: boolean; afterTokens: number; messages: number } };
    };
    expect(r.onPoolThread).toBe(true);
    expect(r.poolStarted).toBe(false);
    expect(r.count).toEqual({
      ok: true,
      value: { tokens: countTokens(text), chars: text.length, encoding: 'o200k_base' },
    });
    const here = foldTranscript(messages, { keepRecentUnits: 2 });
    expect(r.fold).toMatchObject({
      ok: true,
      value: { changed: here.changed, afterTokens: here.afterTokens, messages: here.messages.length },
    });
    expect(isPoolStarted()).toBe(true);
  });
});
