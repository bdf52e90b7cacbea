import { describe, expect, it } from 'vitest';
import { createLatencyCollector, nearestRank, percentiles } from '../../lib/batch/latency.js';
import type { BatchRecord } from '../../lib/batch/records.js';
import { latencyGroup } from '../../lib/batch/tally.js';
import { createTimingWatch, outputTokensPerSecond, withQueue } from '../../lib/batch/timing.js';
import type { OutputEvent } from '../../lib/events/index.js';

function record(id: string, totalMs: number, firstTokenMs?: number, model = 'm1'): BatchRecord {
  return {
    kind: 'result',
    id,
    line: 1,
    outcome: 'completed',
    reason: 'completed',
    finalText: '',
    provider: 'p',
    model,
    timing: { modelMs: 0, toolMs: 0, queueMs: 0, totalMs, ...(firstTokenMs !== undefined ? { firstTokenMs } : {}) },
  };
}

const event = (type: string, payload: unknown = {}): OutputEvent => ({ type, payload }) as unknown as OutputEvent;

describe('batch latency percentiles (nearest-rank)', () => {
  it('match a hand computation over ten values', () => {
    // Sorted: 10 20 30 40 50 60 70 80 90 100. Nearest rank: p50 -> ceil(5) = 5th = 50;
    // p90 -> ceil(9) = 9th = 90; p99 -> ceil(9.9) = 10th = 100.
    const values = [70, 10, 100, 40, 20, 90, 30, 60, 50, 80];
    expect(percentiles(values)).toEqual({ count: 10, p50: 50, p90: 90, p99: 100, max: 100 });
  });

  it('pick an observed value, never an interpolation, for odd counts', () => {
    // Sorted: 1 2 3 4 1000. p50 -> ceil(2.5) = 3rd = 3; p90 -> ceil(4.5) = 5th = 1000.
    expect(percentiles([1000, 3, 1, 4, 2])).toEqual({ count: 5, p50: 3, p90: 1000, p99: 1000, max: 1000 });
    expect(nearestRank([7], 50)).toBe(7);
    expect(percentiles([])).toBeUndefined();
  });

  it('group records by provider/model and leave first-token latency out where no token streamed', () => {
    const c = createLatencyCollector();
    const rs = [record('a', 100, 10), record('b', 300, 30), record('c', 200, undefined, 'm2')];
    for (const r of rs) c.add(r, latencyGroup(r));
    const s = c.summary();
    expect(s.totalMs).toEqual({ count: 3, p50: 200, p90: 300, p99: 300, max: 300 });
    expect(s.firstTokenMs).toEqual({ count: 2, p50: 10, p90: 30, p99: 30, max: 30 });
    expect(Object.keys(s.byModel)).toEqual(['p/m1', 'p/m2']);
    expect(s.byModel['p/m2']).toEqual({ totalMs: { count: 1, p50: 200, p90: 200, p99: 200, max: 200 } });
  });
});

describe('a run timing watch', () => {
  it('measures first token, model-stream and tool time and backoff delays from the run events', () => {
    let now = 1000;
    const w = createTimingWatch(() => now);
    now = 1050;
    w.onEvent(event('model.response.started'));
    now = 1120;
    w.onEvent(event('assistant.message.delta', { delta: 'hi' }));
    w.onEvent(event('assistant.message.delta', { delta: ' there' }));
    now = 1200;
    w.onEvent(event('model.response.completed', { outcome: 'completed' }));
    w.onEvent(event('tool.completed', { durationMs: 40 }));
    w.onEvent(event('recovery.started', { strategy: 'retry', delayMs: 500 }));
    now = 1800;
    w.onEvent(event('model.response.started'));
    now = 1900;
    w.onEvent(event('model.response.completed', { outcome: 'completed' }));
    now = 2000;
    expect(w.timing()).toEqual({ firstTokenMs: 120, modelMs: 250, toolMs: 40, queueMs: 500, totalMs: 1000 });
    expect(outputTokensPerSecond(500, 250)).toBe(2000);
    expect(outputTokensPerSecond(undefined, 250)).toBeUndefined();
  });

  it('adds the coordinator queue wait and keeps the longer total', () => {
    expect(withQueue({ modelMs: 1, toolMs: 2, queueMs: 500, totalMs: 1000 }, 300, 1400)).toEqual({
      modelMs: 1,
      toolMs: 2,
      queueMs: 800,
      totalMs: 1400,
    });
  });
});
