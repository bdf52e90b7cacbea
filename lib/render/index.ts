import type { ReducerState } from '../reducer/index.js';
import { createJsonlRenderer } from './jsonl.js';
import { createLinearRenderer } from './linear.js';
import { viewOf } from './state-view.js';
import { createTtyRenderer, type IntervalTimer, type TerminalStream } from './tty.js';
import type { Renderer, Verbosity, Writer } from './types.js';
import { definedOnly } from '../defined-only.js';

export * from './types.js';
export { reportSetupFailure } from './jsonl.js';
export { viewOf } from './state-view.js';
export { oneLine } from './display-text.js';
export { colorLevel } from './color.js';
export { createTtyRenderer, createLinearRenderer };
export { loadMarkdown } from './markdown/index.js';
export type { LiveRenderer } from './tty.js';
export { liveDiffBound } from './tty.js';
export { diffLines } from './diff.js';
export type { FactLine } from './format.js';
export { approvalQuestion } from './format.js';

/** Which renderer: `tty` (falls back to linear when the stream is not a TTY), `linear`, `jsonl`. */
export type RendererKind = 'tty' | 'linear' | 'jsonl';

/** Options of {@link createRenderer}. */
export interface RendererOptions {
  /** Main output: stdout. For `jsonl` it receives JSON lines only. */
  out: Writer;
  /** Human diagnostics: stderr. Default: discard. */
  err?: Writer;
  /** The stream behind `out` (TTY-ness, columns, `resize`); `tty` only. */
  stream?: TerminalStream;
  /** Default `normal`; ignored by `jsonl` (always `machine`). */
  verbosity?: Exclude<Verbosity, 'machine'>;
  /** Unfold reasoning text in the TTY; default false. */
  showReasoning?: boolean;
  /** Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Default `Date.now`. */
  clock?: () => number;
  timer?: IntervalTimer;
}

/** Create a renderer over reducer state (`lib/reducer/`); the pipeline calls `onEvent` after each reduce. */
export function createRenderer(kind: RendererKind, options: RendererOptions): Renderer<ReducerState> {
  const verbosity = options.verbosity ?? 'normal';
  switch (kind) {
    case 'jsonl':
      return createJsonlRenderer(definedOnly({ out: options.out, err: options.err, viewOf }));
    case 'linear':
      return createLinearRenderer({ out: options.out, viewOf, verbosity });
    case 'tty':
      return createTtyRenderer(
        definedOnly({
          out: options.out,
          viewOf,
          verbosity,
          showReasoning: options.showReasoning ?? false,
          stream: options.stream,
          env: options.env,
          clock: options.clock,
          timer: options.timer,
        }),
      );
  }
}
