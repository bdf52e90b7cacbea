import type { OutputEvent } from '../events/index.js';
import { factLines, plainLine, summaryLines, type FactLine } from './format.js';
import { projectEvent, projectFinish } from './projection.js';
import { projectSummary } from './summary.js';
import type { FinishExtra, Renderer, Verbosity, Writer } from './types.js';
import type { StateView } from './view.js';

/** Options of {@link createLinearRenderer}. */
export interface LinearRendererOptions<S> {
  /** Where lines go (stdout for `replay --linear`, stderr for `exec --json`'s human side). */
  out: Writer;
  /** Reducer state -> projection view. */
  viewOf: (state: S) => StateView;
  /** Default `normal`. */
  verbosity?: Exclude<Verbosity, 'machine'>;
  /** Turns a line into output text; default plain. The TTY fallback passes a colouring one under FORCE_COLOR. */
  style?: (line: FactLine) => string;
}

/** The verify line shared with the TTY summary. */
export function verifyLine(verify: { ok: boolean; command: string }): FactLine {
  return verify.ok
    ? { status: 'completed', label: '✓ verify', text: `passed: ${verify.command}` }
    : { status: 'failed', label: '✗ verify', text: `failed: ${verify.command}` };
}

/** How {@link partialLines} shows a message: which streamed here, how its text becomes lines, and with ids or not. */
export interface PartialOptions {
  /** True for a message this renderer saw stream; default every live message. */
  shown?: (messageId: string) => boolean;
  /** Text to lines (the TTY renders Markdown); default one line per text line. */
  lines?: (text: string) => FactLine[];
  /** Name the message id in the partial marker (verbose views). */
  ids?: boolean;
}

/**
 * Text that streamed and never completed, once per message (`done` remembers): the partial
 * answer of a turn that was stopped or failed. At the end of a run (`atEnd`) an answer still
 * open is marked partial; when a turn ends, the line saying how follows it instead.
 */
export function partialLines(
  view: StateView,
  done: Set<string>,
  atEnd: boolean,
  options: PartialOptions = {},
): FactLine[] {
  const out: FactLine[] = [];
  for (const m of view.liveMessages()) {
    if (m.text === '' || done.has(m.messageId) || (options.shown && !options.shown(m.messageId))) continue;
    done.add(m.messageId);
    out.push(...(options.lines ? options.lines(m.text) : m.text.split('\n').map((text) => ({ text }))));
    if (atEnd)
      out.push({
        status: 'partial',
        label: '◐ partial',
        text: options.ids ? `message ${m.messageId} did not complete` : 'the answer did not complete',
      });
  }
  return out;
}

/**
 * Plain, append-only text: one line per settled fact, nothing live, no escapes ever. What CI
 * logs and pipes want; also the TTY renderer's fallback when output is not a terminal.
 */
export function createLinearRenderer<S>(options: LinearRendererOptions<S>): Renderer<S> {
  const verbosity = options.verbosity ?? 'normal';
  const style = options.style ?? plainLine;
  const write = (lines: FactLine[]): void => {
    if (lines.length > 0) options.out(lines.map((l) => `${style(l)}\n`).join(''));
  };
  // Call and approval ids are for cross-reference with logs: verbose views only.
  const ids = verbosity !== 'normal';
  let finished = false;
  const printed = new Set<string>();
  /** Partial answers already printed (a turn that ended before its message completed). */
  const partials = new Set<string>();
  return {
    onEvent(event: OutputEvent, state: S) {
      if (finished) return;
      const view = options.viewOf(state);
      const projected = projectEvent(event, view, { verbosity });
      // Only a line printed as interrupted can repeat one projectFinish would print; keeping
      // just those keeps the set as small as the run's interrupted tools.
      if (projected.fact?.kind === 'tool.finished' && projected.fact.tool.status === 'interrupted')
        printed.add(projected.fact.tool.toolCallId);
      // A turn that ends (stopped, failed) with an answer half streamed: its text first, then how it ended.
      if (projected.fact?.kind === 'task' && ids === false) write(partialLines(view, partials, false));
      if (projected.fact) write(factLines(projected.fact, ids));
    },
    finish(state: S, extra?: FinishExtra) {
      if (finished) return;
      finished = true;
      const view = options.viewOf(state);
      if (!ids) write(partialLines(view, partials, true));
      for (const fact of projectFinish(view, printed)) write(factLines(fact, ids));
      const summary = projectSummary(view.run(), extra);
      const lines = summaryLines(summary);
      if (summary.verify) lines.push(verifyLine(summary.verify));
      write([{ label: '──', text: 'summary' }, ...lines]);
    },
  };
}
