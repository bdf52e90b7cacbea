import type { OutputEvent } from '../events/index.js';

/** Where a renderer writes: a function taking a chunk of text (`process.stdout.write` bound, or a test collector). */
export type Writer = (chunk: string) => void;

/** Verbosity of a human projection; `machine` is the JSONL one. */
export type Verbosity = 'normal' | 'verbose' | 'debug' | 'machine';

/** Facts known only when the run ends, outside the event stream. */
export interface FinishExtra {
  /** Present only when verification actually ran (docs/exec.md). */
  verify?: { ok: boolean; command: string };
  /** The submit_result JSON, passed verbatim; overrides a `result.produced` event's result. */
  result?: unknown;
  /** Share of prompt tokens read from the provider's cache; absent when unknown. */
  cacheHitRatio?: number;
  /**
   * The run stopped before its first turn (its store could not be opened): the summary is a
   * failure (`outcome: failed`) with this error.
   */
  error?: { category: string; code?: string; message: string; action?: string };
  /**
   * The command was stopped by a signal (ingest): the summary is a failure with this error and
   * keeps the run's own outcome (what its events rebuild to).
   */
  interrupted?: { category: string; code?: string; message: string };
  /**
   * The store did not acknowledge the run's events (a full disk, an I/O error): the summary is a
   * failure with this error and keeps the run's own outcome.
   */
  notStored?: { category: string; code?: string; message: string; action?: string };
}

/**
 * What the pipeline drives: one call per event, one call at the end. The state is the
 * reducer's state AFTER the event was reduced (renderers own no runtime truth, I-A01).
 */
export interface Renderer<S> {
  /** `line`, when given, is what {@link Renderer.lineOf} returned for this event (it is printed as is). */
  onEvent(event: OutputEvent, state: S, line?: string): void;
  /**
   * The JSONL line this renderer prints for `event`, if it prints one (the JSONL renderer
   * only). The pipeline asks for the lines of a batch before settling it and hands each line
   * to the store and back to `onEvent`, so an event is serialised once for both.
   */
  lineOf?(event: OutputEvent): string | undefined;
  /** `events.map(lineOf)`, made for the whole batch at once (cheaper); present with `lineOf`. */
  linesOf?(events: readonly OutputEvent[]): (string | undefined)[];
  finish(state: S, extra?: FinishExtra): void;
}
