import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createJsonlRenderer, writeSetupFailure } from '../../lib/render/jsonl.js';
import { viewOf } from '../../lib/render/state-view.js';
import type { FinishExtra } from '../../lib/render/types.js';
import { createEnveloper } from '../../lib/events/index.js';
import { initialState, reduce } from '../../lib/reducer/index.js';
import { ROOT } from '../helpers/cli.js';
import { checkJsonlLines } from '../helpers/jsonl-contract.js';
import { STREAMS, collector, drive, loadEvents } from './drive.js';

function runJsonl(stream: string, extra?: FinishExtra): string[] {
  const c = collector();
  drive(createJsonlRenderer({ out: c.write, viewOf }), loadEvents(stream), extra);
  expect(c.text().endsWith('\n')).toBe(true);
  return c.text().slice(0, -1).split('\n');
}

describe('the exec --json stream', () => {
  it.each(STREAMS)('for the %s stream holds envelopes, text records and one summary, last', (stream) => {
    const records = checkJsonlLines(runJsonl(stream));
    const events = loadEvents(stream);
    // Every machine-visible event is there, in order; no human-only event is.
    const envelopes = records.filter((r) => r.type !== 'text' && r.type !== 'summary');
    expect(envelopes.map((r) => r.eventId)).toEqual(
      events.filter((e) => e.visibility.includes('machine')).map((e) => e.eventId),
    );
    // Model text arrives as text records, in order.
    const text = records
      .filter((r) => r.type === 'text')
      .map((r) => r.delta)
      .join('');
    const deltas = events.flatMap((e) => (e.type === 'assistant.message.delta' ? [e.payload.delta] : [])).join('');
    expect(text).toBe(deltas);
  });

  it('reports outcome, tools by status, files, usage, cost and the submit_result result in the summary', () => {
    const summary = checkJsonlLines(runJsonl('tool-run')).at(-1)!;
    expect(summary).toMatchObject({
      ok: true,
      outcome: 'completed',
      reason: 'completed',
      sessionId: 'ses_tools',
      durationMs: 2750,
      usage: { inputTokens: 1200, outputTokens: 85 },
      costUsd: 0.0049,
      tools: { completed: 2, failed: 1, denied: 1, cancelled: 0, interrupted: 0 },
      filesChanged: ['src/a.ts'],
      result: { fixed: 1, committed: false },
    });
    expect(summary).not.toHaveProperty('verify');
    expect(summary).not.toHaveProperty('error');
  });

  it('carries verify only on a success summary, and only when verification ran', () => {
    const ran = checkJsonlLines(runJsonl('tool-run', { verify: { ok: false, command: 'npm run lint' } })).at(-1)!;
    expect(ran.ok).toBe(true);
    expect(ran.verify).toEqual({ active: true, ok: false, command: 'npm run lint' });
    const failed = checkJsonlLines(runJsonl('failed-run', { verify: { ok: true, command: 'npm test' } })).at(-1)!;
    expect(failed.ok).toBe(false);
    expect(failed).not.toHaveProperty('verify');
    expect(failed.error).toEqual({
      category: 'PROVIDER_ERROR',
      code: 'MINICODE_E_PROVIDER',
      message: '3 retries exhausted',
      action: 'try again later or pick another provider',
    });
  });

  it('ends an interrupted stream with ok:false and an error, never an invented completion', () => {
    const summary = checkJsonlLines(runJsonl('truncated')).at(-1)!;
    expect(summary).toMatchObject({ ok: false, outcome: 'interrupted', tools: { interrupted: 1 } });
    expect(summary.error).toMatchObject({ category: expect.any(String), message: expect.any(String) });
  });

  it('passes a submit_result given at finish through verbatim', () => {
    const result = { findings: [{ category: 'bug', severity: 'high', summary: 'x' }], nested: { a: [1, null, 'ü'] } };
    const summary = checkJsonlLines(runJsonl('approval', { result })).at(-1)!;
    expect(summary.result).toEqual(result);
  });

  it('writes nothing after the summary', () => {
    const c = collector();
    const renderer = createJsonlRenderer({ out: c.write, viewOf });
    const events = loadEvents('approval');
    const state = drive(renderer, events);
    renderer.onEvent(events[1]!, state);
    renderer.finish(state);
    expect(checkJsonlLines(c.text().trim().split('\n')).at(-1)!.type).toBe('summary');
  });

  it('keeps hostile text inert: control characters are stripped from text records and escaped inside envelopes', () => {
    const enveloper = createEnveloper({ sessionId: 's_hostile', clock: () => 0 });
    const events = [
      enveloper.wrap({
        type: 'assistant.message.delta',
        payload: { messageId: 'm', delta: 'ok\u001b[2J\u009b31m\u202egood' },
      }),
      enveloper.wrap({
        type: 'assistant.message.completed',
        payload: { messageId: 'm', text: 'C1 \u009b31m and \u2028 stay data' },
      }),
    ];
    const c = collector();
    drive(createJsonlRenderer({ out: c.write, viewOf }), events);
    const raw = c.text();
    expect(raw).not.toMatch(/[\u001b\u0080-\u009f\u2028\u202e]/);
    const records = checkJsonlLines(raw.trim().split('\n'));
    expect(records[0]).toEqual({ type: 'text', delta: 'okgood' });
    expect((records[1]!.payload as { text: string }).text).toBe('C1 \u009b31m and \u2028 stay data');
  });

  it.each(STREAMS)(
    'for the %s stream prints the same text when the pipeline hands it the lines it made with lineOf',
    (stream) => {
      const events = loadEvents(stream);
      const own = collector();
      drive(createJsonlRenderer({ out: own.write, viewOf }), events);
      const given = collector();
      const renderer = createJsonlRenderer({ out: given.write, viewOf });
      // As the settle stage does: the lines of the whole batch first, then each event with its line.
      const lines = events.map((e) => renderer.lineOf?.(e));
      let state = initialState(events[0]!.sessionId);
      events.forEach((e, i) => {
        state = reduce(state, e);
        renderer.onEvent(e, state, lines[i]);
      });
      renderer.finish(state);
      expect(lines.filter((l) => l !== undefined).length).toBeGreaterThan(0);
      expect(given.text()).toBe(own.text());
    },
  );
});

describe('a setup failure', () => {
  it('prints exactly one ok:false summary line on stdout and the human message on stderr', () => {
    const out = collector();
    const err = collector();
    writeSetupFailure(out.write, err.write, {
      category: 'CONFIGURATION_ERROR',
      message: 'no provider configured',
      action: 'set MINICODE_PROVIDER',
    });
    const lines = out.text().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      schema: 'minicode.output.v1',
      type: 'summary',
      ok: false,
      outcome: 'failed',
      error: { category: 'CONFIGURATION_ERROR', message: 'no provider configured', action: 'set MINICODE_PROVIDER' },
    });
    expect(err.text()).toContain('no provider configured');
  });

  it('through a real process, keeps stdout to that one line and exits 1', () => {
    const script = `import { writeSetupFailure } from './dist/lib/render/jsonl.js';
      writeSetupFailure((c) => process.stdout.write(c), (c) => process.stderr.write(c), { category: 'CONFIGURATION_ERROR', message: 'no provider' });
      process.exitCode = 1;`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(child.status).toBe(1);
    const lines = child.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      type: 'summary',
      ok: false,
      error: { category: 'CONFIGURATION_ERROR' },
    });
    expect(child.stderr).toContain('no provider');
  });
});
