import type { OutputEvent } from '../events/index.js';
import { activityLine, activityText } from './activity.js';
import { colorLevel, createLineStyler, diffColor, type ColorLevel } from './color.js';
import { DIFF_DISPLAY_LINES, diffLines } from './diff.js';
import { oneLine } from './display-text.js';
import { formatDuration } from './duration.js';
import {
  APPROVAL_PENDING_LABEL,
  approvalQuestion,
  approvalRequestText,
  factLines,
  plainLine,
  summaryLines,
  toolHeader,
  toolIdentity,
  type FactLine,
} from './format.js';
import { createLinearRenderer, partialLines, verifyLine } from './linear.js';
import { projectEvent, projectFinish, type Fact } from './projection.js';
import { projectSummary } from './summary.js';
import type { FinishExtra, Renderer, Verbosity, Writer } from './types.js';
import type { ApprovalView, StateView } from './view.js';
import { loadMarkdown, markdownReady, renderMarkdown } from './markdown/index.js';
import { eraseRows, fitToWidth, rowsFor, wrapToWidth } from './width.js';
import { definedOnly } from '../defined-only.js';
import { dropExpected } from '../debug.js';

export { eraseRows };

/**
 * The TTY renderer: settled facts are printed once, above a live region that shows the current
 * turn (streaming text, a folded "thinking…" line, running tools with a spinner and elapsed
 * time, pending approvals) and is redrawn in place.
 *
 * Redrawing: the live region is erased with cursor-up + clear-line, one per screen row it
 * occupies. Rows are counted from the lines last drawn at the CURRENT width: after a resize a
 * reflowing terminal (tmux, iTerm2, VTE) re-wraps the old lines at the new width, so counting
 * at the old width would move the cursor too little (leaving stale rows) or too far (erasing
 * settled text). Live lines are cut to width-1 columns, so at a steady width each is one row
 * and the cursor never sits in the pending-wrap column.
 *
 * Time: elapsed = (last event timestamp + wall time since it arrived) - tool start timestamp;
 * the wall clock and the spinner timer are injected, so tests are deterministic.
 */

/** Most diff lines a live approval shows on a terminal of `rows` rows (unknown: {@link DIFF_DISPLAY_LINES}). */
export function liveDiffBound(rows: number | undefined): number {
  return rows === undefined ? DIFF_DISPLAY_LINES : Math.max(3, Math.min(DIFF_DISPLAY_LINES, rows - 10));
}

/** What the renderer needs from the output stream (a `tty.WriteStream` satisfies it). */
export interface TerminalStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
  readonly rows?: number;
  /** The size asked of the terminal now (`tty.WriteStream`): `columns` changes only once SIGWINCH is handled. */
  getWindowSize?(): [number, number];
  on?(event: 'resize', listener: () => void): unknown;
  off?(event: 'resize', listener: () => void): unknown;
}

/** An injected interval timer (default: the global one, unref'd so it never holds the process open). */
export interface IntervalTimer {
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** Options of {@link createTtyRenderer}. */
export interface TtyRendererOptions<S> {
  out: Writer;
  /** The stream behind `out`: TTY-ness, width and `resize`. Without it, output is treated as non-TTY. */
  stream?: TerminalStream;
  viewOf: (state: S) => StateView;
  /** Default `normal`. */
  verbosity?: Exclude<Verbosity, 'machine'>;
  /** Show reasoning text instead of the folded "thinking…" line; default false. */
  showReasoning?: boolean;
  /** Environment for NO_COLOR / FORCE_COLOR / TERM; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Wall clock in epoch ms; default `Date.now`. */
  clock?: () => number;
  timer?: IntervalTimer;
  /** Spinner frame interval; default 80 ms. */
  spinnerIntervalMs?: number;
  /** Most rows of streaming text kept in the live region; default 8. */
  maxLiveTextRows?: number;
  /** Width when the stream reports none; default 80. */
  defaultColumns?: number;
  /** Print the run summary at `finish`; default true (the interactive mode shows a footer instead). */
  summary?: boolean;
  /**
   * Extra plain lines drawn at the bottom of the live region on every redraw (the interactive
   * mode's footer and approval keys); default none. Each is cut to the width like any live line.
   */
  footer?: () => readonly (string | FactLine)[];
  /**
   * How the person stops a running turn, shown on the activity line; default `ctrl+c to
   * interrupt` (the interactive mode says `esc to interrupt`). Empty: no hint.
   */
  interruptHint?: string;
}

/** The TTY renderer's extra controls for an interactive surface (absent on the linear fallback). */
export interface LiveRenderer<S> extends Renderer<S> {
  /** Redraw the live region now (the footer changed). */
  refresh?(): void;
  /** Unfold (true) or fold reasoning from now on. */
  setShowReasoning?(on: boolean): void;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const ESC = '\u001b[';
const HIDE_CURSOR = `${ESC}?25l`;
const SHOW_CURSOR = `${ESC}?25h`;

const defaultTimer: IntervalTimer = {
  setInterval(callback, ms) {
    const handle = setInterval(callback, ms);
    handle.unref();
    return handle;
  },
  clearInterval(handle) {
    clearInterval(handle as NodeJS.Timeout);
  },
};

/** Events that leave the activity note as it is: bookkeeping the person does not see as progress. */
const KEEPS_NOTE = new Set(['usage.reported', 'diagnostic.raised', 'checkpoint.created']);

/** The activity note after `event`: a progress message or a retry wait sets it, anything else that happens clears it. */
function noteAfter(event: OutputEvent, note: string | undefined): string | undefined {
  if (event.type === 'task.progress') return oneLine(event.payload.message);
  if (event.type === 'recovery.started') {
    const p = event.payload;
    if (p.strategy === 'compaction') return 'compacting';
    return p.strategy === 'retry'
      ? `retrying the request${p.attempt !== undefined ? `, attempt ${p.attempt}` : ''}`
      : `recovering (${p.strategy})`;
  }
  return KEEPS_NOTE.has(event.type) ? note : undefined;
}

/** The terminal's width now: asked of the terminal when the stream can, else its last known `columns`. */
function currentColumns(stream: TerminalStream | undefined): number | undefined {
  if (stream?.getWindowSize) {
    try {
      const [cols] = stream.getWindowSize();
      if (cols > 0) return cols;
    } catch (error) {
      // A stream that is no longer a terminal (closed, detached) has no size: fall back to `columns`.
      dropExpected('tty: asking the terminal its size', error, 'EBADF', 'ENOTTY', 'EINVAL');
    }
  }
  return stream?.columns;
}

/**
 * Create the TTY renderer; when the stream is not a TTY it returns the linear renderer instead
 * (append-only, coloured only when FORCE_COLOR asks for it).
 */
export function createTtyRenderer<S>(options: TtyRendererOptions<S>): LiveRenderer<S> {
  const env = options.env ?? process.env;
  const isTTY = options.stream?.isTTY === true;
  const level: ColorLevel = colorLevel(env, isTTY);
  const { chalk, style } = createLineStyler(level);
  const verbosity = options.verbosity ?? 'normal';
  // Call and approval ids are for cross-reference with logs: verbose views only.
  const ids = verbosity !== 'normal';
  if (!isTTY) {
    return createLinearRenderer(
      definedOnly({ out: options.out, viewOf: options.viewOf, verbosity, style: level > 0 ? style : undefined }),
    );
  }
  const clock = options.clock ?? Date.now;
  const timer = options.timer ?? defaultTimer;
  const interval = options.spinnerIntervalMs ?? 80;
  const maxTextRows = options.maxLiveTextRows ?? 8;
  const stream = options.stream;
  // The width is asked of the terminal on every redraw: a timer frame between a resize and its
  // SIGWINCH would otherwise erase by the rows of the old width while the terminal has reflowed.
  const columns = (): number => Math.max(10, currentColumns(stream) ?? options.defaultColumns ?? 80);
  // A diff in the live region leaves room for the rest of it on a short terminal.
  const liveDiffRows = (): number => liveDiffBound(stream?.rows);

  let state: S | undefined;
  let drawn: string[] = [];
  let frame = 0;
  let handle: unknown;
  let cursorHidden = false;
  let finished = false;
  let lastEventAt: number | undefined;
  let lastArrival = 0;
  const printed = new Set<string>();
  /**
   * Messages (`m:`) and reasoning (`r:`) that streamed through this renderer. The state can hold
   * text an earlier renderer left partial (a chat's cancelled turn): not this one's to show.
   */
  const streamed = new Set<string>();
  /** Streamed messages already settled as partial text (a stopped turn's answer). */
  const partials = new Set<string>();
  let showReasoning = options.showReasoning ?? false;
  /** The latest producer note (`task.progress`, a retry wait) until another event overtakes it. */
  let note: string | undefined;
  const interruptHint = options.interruptHint ?? 'ctrl+c to interrupt';
  /** What the request event said beyond the reducer's approval state: its options and diff. */
  const approvalExtras = new Map<string, Pick<ApprovalView, 'options' | 'diff'>>();

  function now(): number {
    return lastEventAt === undefined ? clock() : lastEventAt + Math.max(0, clock() - lastArrival);
  }

  /** The live region as plain lines, plus the styled text of each. */
  function liveLines(view: StateView): { plain: string[]; styled: string[] } {
    const width = columns() - 1;
    const spin = SPINNER[frame % SPINNER.length] ?? '*';
    const plain: string[] = [];
    const styled: string[] = [];
    const push = (text: string, styledText?: (fitted: string) => string): void => {
      const fitted = fitToWidth(text, width);
      plain.push(fitted);
      styled.push(styledText ? styledText(fitted) : fitted);
    };
    const pushLine = (line: string | FactLine): void => {
      if (typeof line === 'string') push(line);
      else push(plainLine(line), (t) => (line.tone && level > 0 ? diffColor(chalk, line.tone)(t) : t));
    };
    for (const m of view.liveMessages()) {
      if (!streamed.has(`m:${m.messageId}`) || partials.has(m.messageId)) continue;
      const md = renderMarkdown(m.text, width, chalk);
      if (md) {
        for (const row of md.slice(-maxTextRows))
          push(row.plain, (fitted) => (fitted === row.plain ? row.styled : fitted));
        continue;
      }
      const rows = wrapToWidth(m.text.replace(/\t/g, '  '), width);
      for (const row of rows.slice(-maxTextRows)) push(row);
    }
    const turn = view.activeTurn();
    for (const r of view.liveReasoning()) {
      if (!streamed.has(`r:${r.reasoningId}`)) continue;
      const folded = verbosity === 'normal' && !showReasoning;
      // Folded reasoning during a turn is the activity line's `thinking`: not a second line.
      if (folded && turn) continue;
      if (folded || r.text === '') push(`${spin} thinking…`, (t) => chalk.dim(t));
      else for (const row of wrapToWidth(r.text, width).slice(-3)) push(row, (t) => chalk.dim(t));
    }
    const at = now();
    for (const tool of view.runningTools()) {
      const elapsed = tool.startedAt !== undefined ? ` ${formatDuration(Math.max(0, at - tool.startedAt))}` : '';
      if (ids) {
        const head = `${spin} running`;
        push(
          `${head} ${toolIdentity(tool)}${tool.title ? ` ${tool.title}` : ''}${elapsed}`,
          (t) => chalk.cyan(head) + t.slice(head.length),
        );
        if (tool.progress) push(`  ${tool.progress}`, (t) => chalk.dim(t));
        continue;
      }
      // The call's block while it runs: its header, then the latest line of its output.
      const head = `${spin} ${toolHeader(tool)}`;
      push(`${head}${elapsed}`, (t) => chalk.cyan(t.slice(0, spin.length)) + t.slice(spin.length));
      if (tool.progress) push(`  ⎿ ${tool.progress}`, (t) => chalk.dim(t));
    }
    // An interactive surface with a footer asks for approvals there, with its keys: shown once.
    for (const open of options.footer ? [] : view.openApprovals()) {
      const a = { ...open, ...approvalExtras.get(open.approvalId) };
      if (ids) {
        const text = `${APPROVAL_PENDING_LABEL} ${a.approvalId}: ${approvalRequestText(a, ids)}`;
        push(text, (t) => chalk.yellow(APPROVAL_PENDING_LABEL) + t.slice(APPROVAL_PENDING_LABEL.length));
      } else {
        const options = a.options.length > 0 ? ` (${a.options.join(' / ')})` : '';
        push(`? ${approvalQuestion(a)}${options}`, (t) => chalk.yellow('?') + t.slice(1));
      }
      if (a.diff) for (const line of diffLines(a.diff, liveDiffRows())) pushLine(line);
    }
    // While a turn runs, its activity is the last line above the footer: it moves every frame,
    // so a stalled stream still shows time passing.
    if (turn) {
      const text = activityText(view, { streamed, note });
      const elapsed = turn.startedAt === undefined ? undefined : at - turn.startedAt;
      push(
        activityLine(text, elapsed, spin, interruptHint),
        (t) => chalk.cyan(t.slice(0, spin.length)) + chalk.dim(t.slice(spin.length)),
      );
    } else {
      const progress = view.taskProgress();
      if (progress) push(`${spin} ${progress}`, (t) => chalk.dim(t));
    }
    for (const line of options.footer?.() ?? []) pushLine(line);
    return { plain, styled };
  }

  function erase(): string {
    const cols = columns();
    let rows = 0;
    for (const line of drawn) rows += rowsFor(line, cols);
    drawn = [];
    return eraseRows(rows);
  }

  /** Erase the live region, print settled lines, draw the live region again: one write. */
  function redraw(settled: FactLine[] = []): void {
    if (state === undefined) return;
    const parts: string[] = [erase()];
    for (const line of settled) parts.push(`${line.styled ?? style(line)}\n`);
    if (!finished) {
      const live = liveLines(options.viewOf(state));
      if (live.plain.length > 0 && !cursorHidden) {
        parts.unshift(HIDE_CURSOR);
        cursorHidden = true;
      }
      parts.push(live.styled.join('\n'));
      drawn = live.plain;
      animate(live.plain.length > 0);
    }
    const chunk = parts.join('');
    if (chunk !== '') options.out(chunk);
  }

  function animate(on: boolean): void {
    if (on && handle === undefined) {
      handle = timer.setInterval(() => {
        frame++;
        redraw();
      }, interval);
    } else if (!on && handle !== undefined) {
      timer.clearInterval(handle);
      handle = undefined;
    }
  }

  /** Streamed text that never completed, once per message; marked partial at the end of the run. */
  function partialsOf(atEnd: boolean): FactLine[] {
    if (state === undefined) return [];
    return partialLines(options.viewOf(state), partials, atEnd, {
      shown: (id) => streamed.has(`m:${id}`),
      lines: messageLines,
      ids,
    });
  }

  /** Model text as Markdown rows when the tokenizer is loaded, else as it arrived. */
  function messageLines(text: string): FactLine[] {
    const md = renderMarkdown(text, columns() - 1, chalk);
    if (!md) return text.split('\n').map((t) => ({ text: t }));
    return md.map((row) => ({ text: row.plain, styled: row.styled }));
  }

  // Markdown arrives a moment later on a cold start; what is live then is redrawn with it.
  if (!markdownReady())
    void loadMarkdown().then(
      () => finished || redraw(),
      () => undefined,
    );

  const onResize = (): void => redraw();
  stream?.on?.('resize', onResize);

  function linesOf(fact: Fact): FactLine[] {
    // As in the linear renderer: only an interrupted line can be repeated by projectFinish.
    if (fact.kind === 'tool.finished' && fact.tool.status === 'interrupted') printed.add(fact.tool.toolCallId);
    if (fact.kind === 'approval.requested')
      approvalExtras.set(
        fact.approval.approvalId,
        definedOnly({ options: fact.approval.options, diff: fact.approval.diff }),
      );
    if (fact.kind === 'approval.settled') approvalExtras.delete(fact.approvalId);
    if (fact.kind === 'message') return [...messageLines(fact.text), ...factLines({ ...fact, text: '' }, ids)];
    // A turn that ends (stopped, failed) with an answer half streamed: its text first, then how it ended.
    if (fact.kind === 'task' && !ids) return [...partialsOf(false), ...factLines(fact, ids)];
    // The live region (or the interactive footer) shows a pending approval; only its answer settles.
    if (fact.kind === 'approval.requested' && !ids) return [];
    return factLines(fact, ids);
  }

  return {
    onEvent(event: OutputEvent, next: S) {
      if (finished) return;
      state = next;
      if (event.type === 'assistant.message.delta')
        streamed.add(`m:${oneLine((event.payload as { messageId: string }).messageId)}`);
      else if (event.type === 'assistant.reasoning.delta')
        streamed.add(`r:${oneLine((event.payload as { reasoningId: string }).reasoningId)}`);
      note = noteAfter(event, note);
      const at = Date.parse(event.timestamp);
      if (!Number.isNaN(at)) {
        lastEventAt = at;
        lastArrival = clock();
      }
      const projected = projectEvent(event, options.viewOf(next), { verbosity, showReasoning });
      redraw(projected.fact ? linesOf(projected.fact) : []);
    },
    finish(next: S, extra?: FinishExtra) {
      if (finished) return;
      state = next;
      finished = true;
      animate(false);
      stream?.off?.('resize', onResize);
      const view = options.viewOf(next);
      const settled: FactLine[] = [];
      // Text that streamed but never completed: shown as it arrived, marked partial.
      settled.push(...partialsOf(true));
      for (const fact of projectFinish(view, printed)) settled.push(...linesOf(fact));
      if (options.summary !== false) {
        const summary = projectSummary(view.run(), extra);
        settled.push({ label: '──', text: 'summary' }, ...summaryLines(summary));
        if (summary.verify) settled.push(verifyLine(summary.verify));
      }
      redraw(settled);
      if (cursorHidden) options.out(SHOW_CURSOR);
    },
    refresh() {
      if (!finished) redraw();
    },
    setShowReasoning(on) {
      showReasoning = on;
      if (!finished) redraw();
    },
  };
}
