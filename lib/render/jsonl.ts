import type { OutputEvent } from '../events/index.js';
import { batchLines } from './batch-lines.js';
import { displayText } from './display-text.js';
import { jsonLine, jsonTextDelta } from './json-line.js';
import { isVisible } from './projection.js';
import { jsonSummary, projectSummary, setupFailureSummary, type SetupFailure } from './summary.js';
import type { FinishExtra, Renderer, Writer } from './types.js';
import type { StateView } from './view.js';
import { failureLine } from '../failure-line.js';
import { definedOnly } from '../defined-only.js';

/** Options of {@link createJsonlRenderer}. */
export interface JsonlRendererOptions<S> {
  /** stdout: receives JSON lines only. */
  out: Writer;
  /** stderr: human text; the JSONL renderer writes none itself. */
  err?: Writer;
  viewOf: (state: S) => StateView;
}

/**
 * The `exec --json` contract (docs/exec.md): one envelope per line for every event visible to
 * `machine`, model text as separate `{"type":"text","delta"}` records, and one versioned
 * summary, last. Nothing else is written to `out`; after `finish` further events are dropped,
 * so the summary stays the last line.
 */
export function createJsonlRenderer<S>(options: JsonlRendererOptions<S>): Renderer<S> {
  let finished = false;
  // One-entry memo of this renderer's last line: `lineOf` then `onEvent` of the same event
  // serialise it once. Keyed by identity: envelopes are not mutated once built.
  let lastEvent: OutputEvent | undefined;
  let lastLine = '';
  const lineOf = (event: OutputEvent): string | undefined => {
    if (event === lastEvent) return lastLine;
    if (event.type === 'assistant.message.delta' || !isVisible(event, 'machine')) return undefined;
    lastLine = jsonLine(event);
    lastEvent = event;
    return lastLine;
  };
  return {
    lineOf,
    linesOf(events) {
      // The visible events' lines from one serialisation (see batch-lines.ts), in place.
      const lines = new Array<string | undefined>(events.length);
      const visible: OutputEvent[] = [];
      for (let i = 0; i < events.length; i++) {
        const event = events[i] as OutputEvent;
        if (event.type !== 'assistant.message.delta' && isVisible(event, 'machine')) visible.push(event);
      }
      const made = batchLines(visible);
      for (let i = 0, k = 0; i < events.length; i++) if (events[i] === visible[k]) lines[i] = made[k++];
      return lines;
    },
    onEvent(event: OutputEvent, _state: S, given?: string) {
      if (finished) return;
      if (event.type === 'assistant.message.delta') {
        // Already scrubbed and ANSI-free from the pipeline; cleaned again at this boundary.
        const delta = displayText(event.payload.delta);
        if (delta !== '') options.out(`${jsonTextDelta(delta)}\n`);
        return;
      }
      const line = given ?? lineOf(event);
      if (line !== undefined) options.out(`${line}\n`);
    },
    finish(state: S, extra?: FinishExtra) {
      if (finished) return;
      finished = true;
      options.out(`${jsonLine(jsonSummary(projectSummary(options.viewOf(state).run(), extra)))}\n`);
    },
  };
}

/** How `exec --json` prints a child session's events: all its envelopes, or its start and end only. */
export type JsonChildrenMode = 'events' | 'summary';

/** The session boundaries `--json-children summary` keeps of a child. */
const CHILD_SUMMARY_TYPES: ReadonlySet<string> = new Set(['session.started', 'session.ended']);

/**
 * The renderer of a child session (the `task` tool) under `exec --json`: its envelopes as lines
 * among the parent's, each naming the child's `sessionId` (its `session.started` names the
 * parent session and tool call), or with `summary` only its `session.started` and
 * `session.ended`. Model text records and the summary line stay the parent's: a child writes
 * neither, so the parent's summary is still the one last line.
 */
export function createChildJsonlRenderer<S>(options: { out: Writer; mode: JsonChildrenMode }): Renderer<S> {
  return {
    onEvent(event: OutputEvent) {
      if (event.type === 'assistant.message.delta' || !isVisible(event, 'machine')) return;
      if (options.mode === 'summary' && !CHILD_SUMMARY_TYPES.has(event.type)) return;
      options.out(`${jsonLine(event)}\n`);
    },
    finish() {},
  };
}

/**
 * Write a setup failure the way `exec --json` must: exactly one `ok:false` summary line on
 * `out`, the human message on `err`. The caller exits 1.
 */
export function writeSetupFailure(out: Writer, err: Writer, failure: SetupFailure): void {
  const summary = setupFailureSummary(failure);
  out(`${jsonLine(summary)}\n`);
  // The same scrubbed message and action as the summary line.
  err(failureLine(summary.error!));
}

/**
 * Report an error met while setting a command's run up: under `--json` {@link writeSetupFailure}
 * (with the prompt, when there was one), else the failure line on `err`. Returns the exit code.
 */
export function reportSetupFailure(
  error: { category: string; code: string; message: string; action?: string | undefined; exitCode: number },
  options: { json: boolean | undefined; out: Writer; err: Writer; prompt?: string; withCode?: boolean },
): number {
  const { category, code, message } = error;
  const action = error.action || undefined;
  if (options.json)
    writeSetupFailure(
      options.out,
      options.err,
      definedOnly({ category, code, message, action, prompt: options.prompt }),
    );
  else options.err(failureLine(error, { withCode: options.withCode === true }));
  return error.exitCode;
}

export { setupFailureSummary };
