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
  return verify.ok ? { status: 'completed', label: '✓ verify', text: `passed: ${verify.command}` } : { status: 'failed', label: '✗ verify', text: `failed: ${verify.command}` };
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
  let finished = false;
  const printed = new Set<string>();
  return {
    onEvent(event: OutputEvent, state: S) {
      if (finished) return;
      const projected = projectEvent(event, options.viewOf(state), { verbosity });
      // Only a line printed as interrupted can repeat one projectFinish would print; keeping
      // just those keeps the set as small as the run's interrupted tools.
      if (projected.fact?.kind === 'tool.finished' && projected.fact.tool.status === 'interrupted') printed.add(projected.fact.tool.toolCallId);
      if (projected.fact) write(factLines(projected.fact));
    },
    finish(state: S, extra?: FinishExtra) {
      if (finished) return;
      finished = true;
      const view = options.viewOf(state);
      for (const fact of projectFinish(view, printed)) write(factLines(fact));
      const summary = projectSummary(view.run(), extra);
      const lines = summaryLines(summary);
      if (summary.verify) lines.push(verifyLine(summary.verify));
      write([{ label: '──', text: 'summary' }, ...lines]);
    },
  };
}
