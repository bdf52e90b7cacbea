import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseLine } from '../../lib/batch/input.js';
import { GRADER_SYSTEM_PROMPT, gradingScale, parseVerdict } from '../../lib/batch/grader.js';
import { openStore } from '../../lib/store/index.js';
import type { Answer, SeenRequest } from '../helpers/scripted-provider.js';
import { readRecords } from './helpers.js';
import { closeScriptedBatches, scriptedBatch } from './scripted-batch.js';

afterAll(closeScriptedBatches);

const ROOT = path.resolve(import.meta.dirname, '../..');
const answer = (text: string): Answer => ({ text, usage: { inputTokens: 100, outputTokens: 20 } });

/** A request of the grader: its system prompt is the grader's. */
function isGrader(request: SeenRequest): boolean {
  const first = request.body.messages[0];
  return first?.role === 'system' && JSON.stringify(first.content).includes('You grade the work of an AI agent');
}

const rubric = { rubric: 'The answer names the capital of France.' };

describe("a batch line's model scorer", () => {
  it('grades each completed run in a stored session of its own, keeps score, reasoning and the grader cost apart from the run, and fails a malformed verdict as a scorer error', async () => {
    const graderRequests: SeenRequest[] = [];
    const verdicts: Record<string, string> = {
      good: '{"score": 9, "reasoning": "Names Paris."}',
      poor: '{"score": 3, "reasoning": "Names Lyon, not Paris."}',
      fenced: '```json\n{"score": 8, "reasoning": "Paris, with a detour."}\n```',
      prose: 'I would give this a 9/10 because it names Paris.',
      extra: '{"score": 9, "reasoning": "Paris.", "confidence": "high"}',
      offscale: '{"score": 11, "reasoning": "Paris, brilliantly."}',
    };
    const ids = Object.keys(verdicts);
    const { result, out, dir, seen } = await scriptedBatch(
      [
        ...ids.map((id) => ({ id, expect: { model: rubric, includes: 'answer' } })),
        { id: 'strict', expect: { model: { ...rubric, model: 'gpt-4.1-mini', scale: [1, 5], pass: 5 } } },
        { id: 'submitted', expect: { model: rubric } },
      ],
      (id, nth, request) => {
        if (!isGrader(request)) return answer(`answer of ${id}`);
        graderRequests.push(request);
        if (id === 'submitted')
          return nth === 2
            ? {
                text: '',
                toolCalls: [
                  { id: 'v1', name: 'submit_result', argumentsText: '{"score":10,"reasoning":"Paris, plainly."}' },
                ],
                usage: { inputTokens: 100, outputTokens: 20 },
              }
            : answer('Submitted.');
        return answer(verdicts[id] ?? '{"score": 4, "reasoning": "Paris, but hedged."}');
      },
    );
    expect(result.code, result.stderr).toBe(0);
    // One agent request and one grader request per line: no scorer outcome is retried.
    for (const id of [...ids, 'strict']) expect(seen.get(id)).toBe(2);
    // A verdict submitted through submit_result: the call, then the grader's closing answer.
    expect(seen.get('submitted')).toBe(3);
    expect(graderRequests).toHaveLength(9);
    for (const request of graderRequests) {
      // No tool but the submit_result every run has.
      expect((request.body.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual([
        'submit_result',
      ]);
      expect(JSON.stringify(request.body.messages[0]!.content)).toContain(
        JSON.stringify(GRADER_SYSTEM_PROMPT).slice(1, -1),
      );
      const user = JSON.stringify(request.body.messages[1]!.content);
      expect(user).toContain('The answer names the capital of France.');
      expect(user).toMatch(/<answer>\\nanswer of \w+\\n<\/answer>/);
    }
    // The grader's model is the scorer's when it names one, else the batch's.
    const strictRequest = graderRequests.find((r) => JSON.stringify(r.body.messages).includes('line:strict'))!;
    expect(strictRequest.body.model).toBe('gpt-4.1-mini');
    expect(graderRequests.filter((r) => r.body.model === 'gpt-4.1')).toHaveLength(8);

    const byId = new Map(readRecords<Record<string, any>>(out).map((r) => [r.id, r]));
    const model = (id: string) => byId.get(id)!.scores.find((s: { scorer: string }) => s.scorer === 'model');
    expect(byId.get('good')).toMatchObject({ passed: true, costUsd: expect.any(Number) });
    expect(model('good')).toEqual({
      scorer: 'model',
      passed: true,
      score: 9,
      detail: 'Names Paris.',
      sessionId: expect.stringMatching(/^ses_/),
      costUsd: expect.any(Number),
      usage: expect.objectContaining({ inputTokens: 100, outputTokens: 20 }),
    });
    // The run's own figures are the agent's alone.
    expect(byId.get('good')!.usage).toMatchObject({ inputTokens: 100, outputTokens: 20 });
    expect(model('good').sessionId).not.toBe(byId.get('good')!.sessionId);
    expect(model('poor')).toMatchObject({ passed: false, score: 3, detail: 'Names Lyon, not Paris.' });
    expect(byId.get('poor')!.passed).toBe(false);
    expect(model('fenced')).toMatchObject({ passed: true, score: 8 });
    for (const id of ['prose', 'extra', 'offscale']) {
      expect(model(id)).toMatchObject({
        passed: false,
        error: { code: 'MINICODE_E_GRADER_VERDICT' },
        sessionId: expect.stringMatching(/^ses_/),
      });
      expect(model(id).score).toBeUndefined();
      expect(byId.get(id)!.passed).toBe(false);
      // A scorer error is an outcome of scoring: the run is a completed result, not an error record.
      expect(byId.get(id)!.kind).toBe('result');
    }
    // 4 on [1, 5] with pass 5 fails; the default pass on [0, 10] is 7.
    expect(model('strict')).toMatchObject({ passed: false, score: 4 });
    expect(model('submitted')).toMatchObject({ passed: true, score: 10, detail: 'Paris, plainly.' });

    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as Record<string, any>;
    expect(summary.grading).toMatchObject({
      graded: 8,
      errors: 3,
      usage: { inputTokens: 900, outputTokens: 180, totalTokens: 1080 },
    });
    expect(summary.grading.costUsd).toBeGreaterThan(0);
    // The batch's cost and usage are the agents' runs only.
    expect(summary.usage).toMatchObject({ inputTokens: 800, outputTokens: 160 });
    expect(summary.evaluation).toMatchObject({ runs: 8, passed: 3 });

    // Each grader run is a session of its own in the batch's store, ended completed.
    const store = openStore({ dir: path.join(dir, 'store') });
    try {
      const events = store.readSession(model('good').sessionId);
      expect(events[0]).toMatchObject({ type: 'session.started', payload: { origin: 'batch-grader' } });
      expect(events.at(-1)).toMatchObject({ type: 'session.ended', payload: { outcome: 'completed' } });
    } finally {
      await store.close();
    }
  }, 120_000);

  it('fails the scorer, not the run, when the grader provider keeps failing, and never runs the line again', async () => {
    const { result, out, seen } = await scriptedBatch(
      [
        { id: 'down', expect: { model: rubric } },
        { id: 'failed', expect: { model: rubric } },
      ],
      (id, _nth, request) => {
        if (isGrader(request)) return { status: 503, code: 'server_error', message: 'The server is overloaded' };
        if (id === 'failed') return { status: 400, code: 'invalid_request_error', message: 'bad request' };
        return answer('Paris');
      },
      ['--retries', '2'],
    );
    expect(result.code).toBe(1);
    // The agent's one request, then the grader's first request and the provider's three retries.
    expect(seen.get('down')).toBe(5);
    const [record] = readRecords<Record<string, any>>(out);
    expect(record).toMatchObject({ id: 'down', kind: 'result', passed: false });
    expect(record!.retries).toBeUndefined();
    expect(record!.scores).toEqual([
      expect.objectContaining({
        scorer: 'model',
        passed: false,
        error: expect.objectContaining({ code: 'MINICODE_E_GRADER' }),
      }),
    ]);
    // A run that did not complete is scored failed without calling the grader.
    expect(seen.get('failed')).toBe(1);
    const [failed] = readRecords<Record<string, any>>(out, 'errors.jsonl');
    expect(failed!.scores).toEqual([expect.objectContaining({ scorer: 'model', passed: false })]);
    expect(failed!.scores[0].error).toBeUndefined();
  }, 120_000);

  it("stops a grader that outlasts the line's timeout and records the line as line_timeout", async () => {
    const { result, out } = await scriptedBatch(
      [{ id: 'slow', timeout: 3000, expect: { model: rubric } }],
      (_id, _nth, request) => (isGrader(request) ? 'hang' : answer('Paris')),
    );
    expect(result.code).toBe(1);
    const [record] = readRecords<Record<string, any>>(out, 'errors.jsonl');
    expect(record).toMatchObject({ id: 'slow', reason: 'line_timeout', error: { code: 'MINICODE_E_LINE_TIMEOUT' } });
    expect(record!.retries).toBeUndefined();
  }, 60_000);

  it('reads a verdict strictly: one JSON object of a whole score on the scale and a reasoning, bare or alone in one fence', () => {
    const scale = { min: 0, max: 10 };
    expect(parseVerdict('{"score":7,"reasoning":"ok"}', scale)).toEqual({ ok: true, score: 7, reasoning: 'ok' });
    expect(parseVerdict('  ```\n{"score":0,"reasoning":" no "}\n```  ', scale)).toEqual({
      ok: true,
      score: 0,
      reasoning: 'no',
    });
    for (const text of [
      '',
      'Score: 7',
      'Here it is: {"score":7,"reasoning":"ok"}',
      '{"score":7,"reasoning":"ok"} and more',
      '```json\n{"score":7,"reasoning":"ok"}\n```\n```json\n{"score":1,"reasoning":"no"}\n```',
      '{"score":"7","reasoning":"ok"}',
      '{"score":7.5,"reasoning":"ok"}',
      '{"score":7}',
      '{"score":7,"reasoning":"  "}',
      '{"score":-1,"reasoning":"ok"}',
      '[7, "ok"]',
    ])
      expect(parseVerdict(text, scale), text).toMatchObject({ ok: false });
  });

  it('refuses a model scorer without a rubric, with a scale that is not [min < max] or a pass off the scale, as a line shape error', () => {
    const line = (model: unknown) => parseLine(JSON.stringify({ id: 'a', prompt: 'x', expect: { model } }), 1);
    expect(line({ rubric: 'names Paris' })).toMatchObject({ id: 'a' });
    for (const bad of [
      {},
      { rubric: ' ' },
      { rubric: 'r', scale: [5, 5] },
      { rubric: 'r', scale: [0, 1000] },
      { rubric: 'r', scale: [0, 10], pass: 11 },
      { rubric: 'r', grader: 'x' },
    ])
      expect(line(bad), JSON.stringify(bad)).toMatchObject({ code: 'MINICODE_E_BATCH_LINE_SHAPE' });
    expect(gradingScale({ rubric: 'r' })).toEqual({ min: 0, max: 10, pass: 7 });
    expect(gradingScale({ rubric: 'r', scale: [1, 5] })).toEqual({ min: 1, max: 5, pass: 4 });
  });

  it('documents the grader prompt word for word in docs/batch.md', () => {
    const docs = fs.readFileSync(path.join(ROOT, 'docs/batch.md'), 'utf8');
    expect(docs).toContain(GRADER_SYSTEM_PROMPT);
  });

  it('refuses a model scorer with --queue with exit 2 before connecting anywhere', async () => {
    const { result } = await scriptedBatch([{ id: 'q', expect: { model: rubric } }], () => answer('x'), [
      '--queue',
      'redis://127.0.0.1:1',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('expect.model');
  }, 60_000);
});
