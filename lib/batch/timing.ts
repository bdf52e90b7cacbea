/**
 * Per-run latency breakdown from the run's own events, timed as they arrive (the events'
 * `timestamp` has millisecond resolution and is stamped at envelope time, so the arrival clock
 * is as good and needs no parsing). Pure apart from the injected clock; the batch coordinator
 * adds the queue wait it alone can see (`withQueue`).
 */
import type { OutputEvent } from '../events/index.js';

/** A record's latency breakdown (milliseconds). */
export interface RunTiming {
  /** Run start to the first streamed token (text, reasoning or tool-call) of the first model response; absent when none streamed. */
  firstTokenMs?: number;
  /** Summed model-stream time: each `model.response.started` to its `model.response.completed`. */
  modelMs: number;
  /** Summed tool time (the tools' own `durationMs`). */
  toolMs: number;
  /** Waiting for a slot (scheduler and pool) plus provider backoff delays inside the run. */
  queueMs: number;
  /** From the moment the line could run (this invocation's start) to its record: queue wait, isolation, the run, verify. */
  totalMs: number;
}

const FIRST_TOKEN_TYPES = new Set([
  'assistant.message.delta',
  'assistant.reasoning.delta',
  'assistant.tool_call.started',
  'assistant.tool_call.delta',
]);
const TOOL_END_TYPES = new Set(['tool.completed', 'tool.failed', 'tool.cancelled']);

/** Watches one run's events; `timing()` is the breakdown so far (queueMs: backoffs only). */
export interface TimingWatch {
  onEvent(event: OutputEvent): void;
  timing(): RunTiming;
}

/** Start timing a run now. */
export function createTimingWatch(clock: () => number = () => performance.now()): TimingWatch {
  const start = clock();
  let firstTokenMs: number | undefined;
  let modelMs = 0;
  let toolMs = 0;
  let backoffMs = 0;
  let responseStart: number | undefined;
  return {
    onEvent(event) {
      const type = event.type;
      if (firstTokenMs === undefined && FIRST_TOKEN_TYPES.has(type)) firstTokenMs = clock() - start;
      else if (type === 'model.response.started') responseStart = clock();
      else if (type === 'model.response.completed') {
        if (responseStart !== undefined) modelMs += clock() - responseStart;
        responseStart = undefined;
      } else if (TOOL_END_TYPES.has(type)) toolMs += (event.payload as { durationMs?: number }).durationMs ?? 0;
      else if (type === 'recovery.started') backoffMs += (event.payload as { delayMs?: number }).delayMs ?? 0;
    },
    timing() {
      const now = clock();
      if (responseStart !== undefined) modelMs += now - responseStart;
      responseStart = undefined;
      const t: RunTiming = {
        modelMs: round(modelMs),
        toolMs: round(toolMs),
        queueMs: round(backoffMs),
        totalMs: round(now - start),
      };
      if (firstTokenMs !== undefined) t.firstTokenMs = round(firstTokenMs);
      return t;
    },
  };
}

/** Output tokens over model-stream seconds; undefined without both. */
export function outputTokensPerSecond(outputTokens: number | undefined, modelMs: number): number | undefined {
  if (!outputTokens || modelMs <= 0) return undefined;
  return Number(((outputTokens * 1000) / modelMs).toFixed(2));
}

/**
 * Add the coordinator's view: `waitedMs` spent waiting for a slot (in the scheduler, then in
 * the pool's queue) and `totalMs` from the batch's start to the record (isolation and verify
 * included), both on the coordinator's clock.
 */
export function withQueue(run: RunTiming, waitedMs: number, totalMs: number): RunTiming {
  return {
    ...run,
    queueMs: round(run.queueMs + Math.max(0, waitedMs)),
    totalMs: round(Math.max(totalMs, run.totalMs)),
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
