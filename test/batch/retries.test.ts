import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Answer } from '../helpers/scripted-provider.js';
import { readRecords } from './helpers.js';
import { closeScriptedBatches, scriptedBatch } from './scripted-batch.js';

afterAll(closeScriptedBatches);

const ok: Answer = { text: 'done', usage: { inputTokens: 10, outputTokens: 2 } };
const unavailable: Answer = { status: 503, code: 'server_error', message: 'The server is overloaded' };

describe('minicode batch --retries', () => {
  it('runs a line again after a 503 the provider retries did not get past, and after a dropped connection, and counts each line once', async () => {
    // The first run of "flaky" and of "dropped" is four requests (one and the provider's three retries), all failing.
    const { result, out, seen } = await scriptedBatch(['steady', 'flaky', 'dropped'], (id, nth) => {
      if (id === 'flaky' && nth <= 4) return unavailable;
      if (id === 'dropped' && nth <= 4) return 'drop';
      return ok;
    });
    expect(result.code, result.stderr).toBe(0);
    const records = readRecords<Record<string, any>>(out);
    expect(records.map((r) => r.id).sort()).toEqual(['dropped', 'flaky', 'steady']);
    expect(readRecords(out, 'errors.jsonl')).toEqual([]);
    const byId = new Map(records.map((r) => [r.id, r]));
    expect(byId.get('steady')!.retries).toBeUndefined();
    expect(byId.get('flaky')!.retries).toEqual([
      {
        error: expect.objectContaining({ category: 'PROVIDER_ERROR', httpStatus: 503 }),
        sessionId: expect.stringMatching(/^ses_/),
        durationMs: expect.any(Number),
        waitedMs: 10,
      },
    ]);
    expect(byId.get('dropped')!.retries).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ category: 'NETWORK_ERROR' }), waitedMs: 10 }),
    ]);
    // The retry is a new session: the failed one stays in the store under its own id.
    expect(byId.get('flaky')!.sessionId).not.toBe(byId.get('flaky')!.retries[0].sessionId);
    expect(seen.get('flaky')).toBe(5);
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as Record<string, any>;
    expect(summary).toMatchObject({ ok: true, total: 3, completed: 3, failed: 0, evaluation: { runs: 3, passed: 3 } });
  }, 120_000);

  it('gives up after --retries tries with the failures kept in the record, and never retries a 400 or a run the agent failed', async () => {
    const { result, out, seen } = await scriptedBatch(
      ['down', 'refused', 'steps'],
      (id) => {
        if (id === 'down') return unavailable;
        if (id === 'refused') return { status: 400, code: 'invalid_request_error', message: 'bad request' };
        // Always a tool call: the run ends max_steps_exceeded, a result of the agent.
        return { text: '', toolCalls: [{ id: 'c1', name: 'read_file', argumentsText: '{"path":"nothing.txt"}' }] };
      },
      ['--retries', '1', '--max-steps', '1'],
    );
    expect(result.code).toBe(1);
    const errors = readRecords<Record<string, any>>(out, 'errors.jsonl');
    const byId = new Map(errors.map((r) => [r.id, r]));
    expect([...byId.keys()].sort()).toEqual(['down', 'refused', 'steps']);
    expect(byId.get('down')!.retries).toHaveLength(1);
    expect(byId.get('down')!.error).toMatchObject({ httpStatus: 503 });
    expect(seen.get('down')).toBe(8);
    expect(byId.get('refused')!.retries).toBeUndefined();
    expect(seen.get('refused')).toBe(1);
    expect(byId.get('steps')!.reason).toBe('max_steps_exceeded');
    expect(byId.get('steps')!.retries).toBeUndefined();
  }, 120_000);

  it('never retries an exhausted usage quota, whose record says so, but retries a rate limit that the provider retries did not get past', async () => {
    const { result, out, seen } = await scriptedBatch(
      ['quota', 'limited'],
      (id, nth) => {
        if (id === 'quota')
          return { status: 429, code: 'insufficient_quota', message: 'You exceeded your current quota' };
        if (nth <= 4)
          return { status: 429, code: 'rate_limit_exceeded', message: 'Rate limit reached', retryAfterMs: 0 };
        return ok;
      },
      ['--retries', '2'],
    );
    expect(result.code).toBe(1);
    const [quota] = readRecords<Record<string, any>>(out, 'errors.jsonl');
    expect(quota).toMatchObject({
      id: 'quota',
      error: { httpStatus: 429, limit: 'usage-quota', recoverability: 'ACTION_REQUIRED' },
    });
    expect(quota!.retries).toBeUndefined();
    // Asked once: the provider layer does not retry it either.
    expect(seen.get('quota')).toBe(1);
    const [limited] = readRecords<Record<string, any>>(out);
    expect(limited).toMatchObject({ id: 'limited', kind: 'result' });
    expect(limited!.retries).toEqual([
      expect.objectContaining({
        error: expect.objectContaining({ httpStatus: 429, limit: 'rate-limit', recoverability: 'RETRYABLE' }),
      }),
    ]);
  }, 120_000);

  it('refuses --retries that is not a whole number with exit 2', async () => {
    const { result } = await scriptedBatch(['x'], () => ok, ['--retries', '-1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--retries');
  }, 60_000);
});
