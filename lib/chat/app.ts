/**
 * The interactive terminal: raw-mode keys -> line editor or turn controls, each prompt a turn
 * rendered live by the TTY renderer (with the footer in its live region), slash commands
 * printed as plain lines, and one clean exit that ends the stored session.
 *
 * Modes: `idle` (the prompt area is drawn and owns the cursor; Ctrl+C clears a draft, and a
 * second Ctrl+C in a row quits) and `turn` (the renderer owns the screen; keys answer approvals
 * and `ask_user`, Esc aborts, Ctrl+C aborts and a second Ctrl+C exits once the turn has settled). Nothing here is carried by colour alone: every
 * state has a word (`? approval`, `◌ cancelled ... aborted`, `Context:`, `Spend:`).
 */
import { emitKeypressEvents } from 'node:readline';
import { Chalk } from 'chalk';
import type { ApprovalDecision, ApprovalRequest } from '../tools/types.js';
import { MinicodeError } from '../errors.js';
import type { OutputEvent } from '../events/index.js';
import { initialState, reduce, type ReducerState } from '../reducer/index.js';
import {
  approvalQuestion,
  colorLevel,
  createTtyRenderer,
  diffLines,
  liveDiffBound,
  oneLine,
  viewOf,
  type FactLine,
  type LiveRenderer,
} from '../render/index.js';
import type { FileDiff } from '../events/index.js';
import type { EventStore } from '../store/index.js';
import { wrapToWidth } from '../render/width.js';
import { COMMANDS, isCommand, runCommand } from './commands.js';
import { matchCommand } from '../extensions/commands.js';
import { decodeKey, type KeyAction, type KeyPress } from './keys.js';
import { applyKey, createEditor, submit, textOf, type Editor } from './line-editor.js';
import { footerLines } from './observe.js';
import { createPromptArea, PROMPT, visibleControls } from './prompt-area.js';
import { createPromptExtras } from './prompt-extras.js';
import type { ImageAttachment } from '../images/load.js';
import { searchKey, searchPrompt, startSearch, type HistorySearch } from './history-search.js';
import { startShellMode, type ShellMode } from './shell-mode.js';
import { foldAttachments } from '../render/attachments.js';
import type { ChatSession } from './session.js';

/** The terminal input the app needs (`process.stdin` on a TTY). */
export interface ChatInput extends NodeJS.EventEmitter {
  isTTY?: boolean;
  setRawMode?(on: boolean): unknown;
  resume(): unknown;
  pause(): unknown;
}

/** The terminal output (`process.stdout`). */
export interface ChatOutput extends NodeJS.EventEmitter {
  isTTY?: boolean;
  columns?: number;
  rows?: number;
  write(chunk: string): boolean;
}

/** Options of {@link runChatApp}. */
export interface ChatAppOptions {
  session: ChatSession;
  store: EventStore;
  cwd: string;
  input: ChatInput;
  output: ChatOutput;
  env?: NodeJS.ProcessEnv;
  /** Aborted on a hang-up or SIGTERM: stop what runs, end the session, resolve 130. */
  stop?: AbortSignal;
  /** `/clear`: a new session like the one ending (its provider and model as `/model` left them); without it `/clear` says it cannot. */
  newSession?: (ending: ChatSession) => ChatSession;
}

interface Turn {
  abort: AbortController;
  renderer: LiveRenderer<ReducerState>;
  interrupts: number;
  approval?: ((d: ApprovalDecision) => void) | undefined;
  /** The pending request in full (the live line above may be cut to the width). */
  approvalText?: string | undefined;
  /** An escalation question's refusal line (already scrubbed), shown above the question. */
  approvalRefusal?: string | undefined;
  /** What the pending edit would change. */
  approvalDiff?: FileDiff | undefined;
  ask?: { question: string; resolve: (answer: string) => void } | undefined;
}

const APPROVAL_KEYS: Record<string, ApprovalDecision> = {
  y: 'allow',
  '1': 'allow',
  a: 'allow-always',
  '2': 'allow-always',
  n: 'deny',
  d: 'deny',
  '3': 'deny',
};
/** The keys the footer names at the prompt and during a turn. */
const IDLE_KEYS = '@file Tab · !cmd · Ctrl+R · /help';
const TURN_KEYS = 'Esc stops · Ctrl+O reasoning';
/** Shown under the prompt after a Ctrl+C there: the next one quits. */
export const QUIT_HINT = 'Press Ctrl+C again to quit';
const BRACKETED_PASTE_ON = '\u001b[?2004h';
const BRACKETED_PASTE_OFF = '\u001b[?2004l';

/** Run the interactive session until the person exits; resolves with the exit code. */
export function runChatApp(options: ChatAppOptions): Promise<number> {
  const { input, output } = options;
  let session = options.session;
  const env = options.env ?? process.env;
  const out = (s: string): void => {
    output.write(s);
  };
  const columns = (): number => Math.max(10, output.columns ?? 80);
  const chalk = new Chalk({ level: colorLevel(env, output.isTTY === true) });
  const area = createPromptArea(out, columns, (l) => chalk.dim(l));
  // The resumed session's prompts as typed: without the blocks that went with them.
  const earlier = session.storedEvents
    .filter((e) => e.type === 'user.message.received')
    .map((e) => foldAttachments((e.payload as { text: string }).text).replace(/\n\[(?:attached|ran) [^\n]*\]/g, ''));
  const custom = session.prompting.commands.commands;
  const extras = createPromptExtras({
    cwd: options.cwd,
    env,
    earlier,
    commands: [
      ...COMMANDS.map(([c, description]) => ({
        name: c.split(' ')[0]!.slice(1),
        hint: c.split(' ').slice(1).join(' ') || undefined,
        description,
      })),
      ...custom.map((c) => ({ name: c.name, hint: c.argumentHint, description: c.description })),
    ],
  });
  let editor: Editor = createEditor(extras.history);
  /** `busy`: a command that changes the session (`/clear`) runs; keys wait for it. */
  let mode: 'idle' | 'turn' | 'shell' | 'busy' | 'exiting' = 'idle';
  /** Lines under the footer until the next key (completion candidates). */
  let hint: string[] = [];
  /** A Ctrl+R search, with the editor it started from. */
  let search: { state: HistorySearch; saved: Editor } | undefined;
  /** A running `!command`. */
  let shell: ShellMode | undefined;
  let turn: Turn | undefined;
  let showReasoning = false;
  let pasting = false;
  /** Keys typed while a turn ran, for the prompt that comes back (see onTurnKey). */
  let typedAhead: KeyAction[] = [];
  let exitAfterTurn = false;
  /** The last key at the prompt was a Ctrl+C: another one quits. */
  let quitArmed = false;
  let exitCode = 0;
  let observed = options.session.observed();
  const footer = (keys?: string): string[] => footerLines(observed, columns() - 1, keys);
  const always = new Set<string>();
  let finish: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => (finish = resolve));

  const refreshFooter = (): void => {
    observed = session.observed();
  };
  const drawIdle = (): void => {
    if (pasting) return;
    if (search) {
      const found = search.state.match === undefined ? '' : (editor.history[search.state.match] ?? '');
      return area.draw(footer(IDLE_KEYS), editorWith(found), searchPrompt(search.state));
    }
    area.draw([...footer(IDLE_KEYS), ...(hint.length > 0 ? hint : extras.suggest(editor))], editor);
  };
  const editorWith = (text: string): Editor => {
    const lines = text.split('\n');
    return {
      ...editor,
      lines,
      row: lines.length - 1,
      col: (lines[lines.length - 1] ?? '').length,
      historyAt: editor.history.length,
    };
  };
  const print = (lines: readonly string[]): void => {
    area.erase();
    // Settled lines are plain text: what they quote (a command's argument, a path) never styles the terminal.
    if (lines.length > 0) out(lines.map((l) => `${visibleControls(l)}\n`).join(''));
  };

  const newRenderer = (extraFooter: () => readonly (string | FactLine)[]): LiveRenderer<ReducerState> =>
    createTtyRenderer({
      out,
      stream: output,
      viewOf,
      verbosity: 'normal',
      showReasoning,
      env,
      summary: false,
      footer: extraFooter,
      interruptHint: 'esc to interrupt',
    });

  function turnFooter(): (string | FactLine)[] {
    if (!turn?.approval && !turn?.ask) return footer(TURN_KEYS);
    const lines: (string | FactLine)[] = footer();
    if (turn.approval) {
      const diff = turn.approvalDiff;
      if (turn.approvalRefusal) lines.push(...wrapToWidth(turn.approvalRefusal, columns() - 1));
      lines.push(...wrapToWidth(turn.approvalText ?? '', columns() - 1));
      if (diff) lines.push(...diffLines(diff, liveDiffBound(output.rows)));
      lines.push(...wrapToWidth('Answer: y allow once, a allow always, n deny', columns() - 1));
    } else if (turn.ask) lines.push(`? ${turn.ask.question}`, `answer${PROMPT}${textOf(editor).replace(/\n/g, ' ⏎ ')}`);
    return lines;
  }

  function renderStored(events: readonly OutputEvent[]): void {
    if (events.length === 0) return;
    const renderer = newRenderer(() => []);
    let state = initialState(events[0]!.sessionId);
    for (const e of events) {
      state = reduce(state, e);
      renderer.onEvent(e, state);
    }
    renderer.finish(state);
  }

  async function startTurn(text: string, images: readonly ImageAttachment[] = []): Promise<void> {
    if (options.stop?.aborted) return exit();
    mode = 'turn';
    const abort = new AbortController();
    turn = { abort, renderer: newRenderer(turnFooter), interrupts: 0 };
    const current = turn;
    // Calls of one step run together and can ask at the same time: one question is shown at a
    // time, the next once it is answered (a second request must not replace the first one's answer).
    let approvals: Promise<unknown> = Promise.resolve();
    let asks: Promise<unknown> = Promise.resolve();
    const inTurn = <T>(previous: Promise<unknown>, next: () => Promise<T>): Promise<T> => previous.then(next, next);
    const promptApproval = (request: ApprovalRequest): Promise<ApprovalDecision> => {
      const asked = inTurn(approvals, () => askApproval(request));
      approvals = asked;
      return asked;
    };
    const promptAskText = (question: string, signal: AbortSignal): Promise<string> => {
      const asked = inTurn(asks, () => askText(question, signal));
      asks = asked.catch(() => undefined);
      return asked;
    };
    const askApproval = (request: ApprovalRequest): Promise<ApprovalDecision> => {
      if (abort.signal.aborted) return Promise.resolve('cancelled');
      if (always.has(`${request.toolName}\u0000${request.action}`)) return Promise.resolve('allow-always');
      return new Promise<ApprovalDecision>((resolve) => {
        const settle = (d: ApprovalDecision): void => {
          current.approval = undefined;
          current.approvalText = undefined;
          current.approvalRefusal = undefined;
          current.approvalDiff = undefined;
          abort.signal.removeEventListener('abort', onAbort);
          if (d === 'allow-always') always.add(`${request.toolName}\u0000${request.action}`);
          resolve(d);
          current.renderer.refresh?.();
        };
        const onAbort = (): void => settle('cancelled');
        abort.signal.addEventListener('abort', onAbort, { once: true });
        current.approval = settle;
        current.approvalText = approvalQuestion({
          toolName: oneLine(request.toolName),
          action: oneLine(request.action, 2000),
          ...(request.diff ? { diff: request.diff } : {}),
        });
        current.approvalRefusal =
          request.sandboxRefusal === undefined ? undefined : oneLine(request.sandboxRefusal, 2000);
        current.approvalDiff = request.diff;
        current.renderer.refresh?.();
      });
    };
    const askText = (question: string, signal: AbortSignal): Promise<string> =>
      new Promise<string>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        editor = createEditor(editor.history);
        const onAbort = (): void => {
          current.ask = undefined;
          reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        current.ask = {
          question,
          resolve: (answer) => {
            signal.removeEventListener('abort', onAbort);
            current.ask = undefined;
            resolve(answer);
          },
        };
        current.renderer.refresh?.();
      });
    try {
      await session.turn(text, {
        images,
        renderer: current.renderer,
        signal: abort.signal,
        promptApproval,
        promptAskText,
        onEvent: (event) => {
          if (event.type === 'usage.reported') {
            refreshFooter();
            current.renderer.refresh?.();
          }
        },
      });
    } catch (error) {
      if (!(error instanceof MinicodeError)) throw error;
      print([`✗ ${error.message}${error.action ? ` - ${error.action}` : ''}`]);
    } finally {
      turn = undefined;
      mode = 'idle';
      extras.invalidateFiles();
      refreshFooter();
    }
    if (exitAfterTurn) await exit();
    else {
      drawIdle();
      applyTypedAhead();
    }
  }

  async function exit(): Promise<void> {
    if (mode === 'exiting') return;
    mode = 'exiting';
    area.erase();
    input.off('keypress', onKey);
    output.off('resize', onResize);
    await session.close();
    const id = session.sessionId;
    out(
      `${BRACKETED_PASTE_OFF}${id ? `session ${id} (minicode replay ${id}; minicode --resume ${id})\n` : 'no prompt sent; nothing stored\n'}`,
    );
    input.setRawMode?.(false);
    input.pause();
    finish(exitCode);
  }

  function onSubmit(text: string): void {
    if (text.trim() === '') return drawIdle();
    extras.remember(text);
    if (text.startsWith('!')) return void runShell(text.slice(1).trim());
    // A custom command is a prompt: it runs as a turn (runPrompt expands it).
    if (isCommand(text) && !matchCommand(text, session.prompting.commands)) {
      const result = runCommand(text, { session, store: options.store, cwd: options.cwd });
      print([`${PROMPT}${text}`, ...result.lines]);
      refreshFooter();
      if (result.exit) void exit();
      else if (result.clear) void clearSession();
      else if (result.later) {
        void result.later.then((lines) => {
          print(lines);
          drawIdle();
        });
      } else drawIdle();
      return;
    }
    area.erase();
    mode = 'turn';
    extras
      .expand(text)
      .then(({ prompt, images, notes }) => {
        if (notes.length > 0) print(notes);
        return startTurn(prompt, images);
      })
      .catch((error: unknown) => {
        print([`minicode: internal error: ${error instanceof Error ? error.message : String(error)}`]);
        void exit();
      });
  }

  /** `/clear`: end the session as an exit would (its SessionEnd hooks, `session.ended`) and go on in a new one. */
  async function clearSession(): Promise<void> {
    if (!options.newSession) {
      print(['/clear is not available here']);
      return drawIdle();
    }
    mode = 'busy';
    const ended = session.sessionId;
    await session.close('clear');
    session = options.newSession(session);
    always.clear();
    refreshFooter();
    print([
      ended ? `Session ${ended} ended (minicode --resume ${ended} reopens it)` : 'Nothing was stored yet',
      'New session (stored at the first prompt)',
    ]);
    mode = 'idle';
    if (exitAfterTurn) await exit();
    else drawIdle();
  }

  /** `!command`: runs without asking (the person typed it), prints, keeps the output for the next message. */
  async function runShell(command: string): Promise<void> {
    print([`${PROMPT}!${command}`]);
    if (command === '') {
      print(['!command runs a shell command in the workspace, e.g. !git status']);
      return drawIdle();
    }
    mode = 'shell';
    shell = startShellMode(command, {
      cwd: options.cwd,
      env,
      draw: (keys, lines) => area.draw([...footer(keys), ...lines], createEditor(), ''),
    });
    const result = await shell.done;
    shell = undefined;
    if (result.block) extras.keepShell(result.block);
    print(result.lines);
    mode = 'idle';
    if (exitAfterTurn) await exit();
    else drawIdle();
  }

  /** Keys while a Ctrl+R search is open; returns false when the key ends the search and should act on the editor. */
  function onSearchKey(action: KeyAction): boolean {
    const s = search!;
    const history = editor.history;
    if (action.kind === 'history-search') s.state = searchKey(s.state, history, { kind: 'older' });
    else if (action.kind === 'edit' && action.key.kind === 'insert')
      s.state = searchKey(s.state, history, { kind: 'type', text: action.key.text });
    else if (action.kind === 'edit' && action.key.kind === 'backspace')
      s.state = searchKey(s.state, history, { kind: 'backspace' });
    else if (action.kind === 'abort' || action.kind === 'interrupt') {
      editor = s.saved;
      search = undefined;
    } else {
      // Any other key takes the match into the editor; Enter then sends it as it stands.
      if (s.state.match !== undefined)
        editor = { ...editorWith(editor.history[s.state.match] ?? ''), historyAt: s.state.match };
      search = undefined;
      if (action.kind !== 'submit') return false;
    }
    drawIdle();
    return true;
  }

  function onTab(): void {
    if (pasting) {
      editor = applyKey(editor, { kind: 'insert', text: '  ' });
      return;
    }
    const before = editor;
    void extras.complete(before).then((r) => {
      // A key typed while the files were listed wins over the completion.
      if (editor !== before || mode !== 'idle') return;
      if (r) {
        editor = r.editor;
        hint = r.hint;
      } else editor = applyKey(editor, { kind: 'insert', text: '  ' });
      drawIdle();
    });
  }

  function onTurnKey(action: KeyAction, str: string | undefined): void {
    const t = turn;
    const typing = action.kind === 'edit' || action.kind === 'submit';
    // Typed while the turn runs and nothing asks: kept for the prompt that comes back (a key
    // typed as the turn ends, before the prompt is drawn, is not lost; an Enter submits).
    if (!t) {
      if (typing) typedAhead.push(action);
      return;
    }
    if (action.kind === 'abort' || action.kind === 'interrupt') {
      if (action.kind === 'interrupt' && ++t.interrupts > 1) exitAfterTurn = true;
      t.abort.abort({
        kind: 'aborted',
        code: 'MINICODE_E_ABORTED',
        message: action.kind === 'abort' ? 'stopped with Esc' : 'stopped with Ctrl+C',
      });
      return;
    }
    if (action.kind === 'toggle-reasoning') {
      showReasoning = !showReasoning;
      t.renderer.setShowReasoning?.(showReasoning);
      return;
    }
    if (t.approval) {
      const decision = str !== undefined ? APPROVAL_KEYS[str.toLowerCase()] : undefined;
      if (decision) t.approval(decision);
      return;
    }
    if (t.ask) {
      if (action.kind === 'submit') {
        const answer = textOf(editor);
        editor = createEditor(editor.history);
        t.ask.resolve(answer);
      } else if (action.kind === 'edit') editor = applyKey(editor, action.key);
      t.renderer.refresh?.();
      return;
    }
    if (typing) typedAhead.push(action);
  }

  /** The keys typed during the turn that just ended, applied to the prompt as if typed now. */
  function applyTypedAhead(): void {
    const keys = typedAhead;
    typedAhead = [];
    // A submit among them starts a turn: the keys after it are kept again for the next prompt.
    for (const action of keys) onAction(action, undefined);
  }

  function onKey(str: string | undefined, key: KeyPress | undefined): void {
    if (key?.name === 'paste-start' || key?.name === 'paste-end') {
      pasting = key.name === 'paste-start';
      // A paste is drawn once, when it ends: redrawing per pasted character is quadratic.
      if (!pasting && mode === 'idle') drawIdle();
      return;
    }
    let action = decodeKey(str, key);
    // Inside a bracketed paste, Enter is a line break, never a submit.
    if (pasting && action.kind === 'submit') action = { kind: 'edit', key: { kind: 'newline' } };
    onAction(action, str);
  }

  function onAction(action: KeyAction, str: string | undefined): void {
    if (mode === 'turn') return onTurnKey(action, str);
    if (mode === 'shell') return shell?.onKey(action, str);
    if (mode !== 'idle') return;
    hint = [];
    const armed = quitArmed;
    quitArmed = false;
    if (search && onSearchKey(action)) return;
    switch (action.kind) {
      case 'complete':
        return onTab();
      case 'history-search':
        search = { state: startSearch(editor.history), saved: editor };
        return drawIdle();
      case 'edit':
        editor = applyKey(editor, action.key);
        return drawIdle();
      case 'submit': {
        const r = submit(editor);
        editor = r.editor;
        if (r.text === undefined) return drawIdle();
        return onSubmit(r.text);
      }
      case 'eof':
        if (textOf(editor) !== '') {
          editor = applyKey(editor, { kind: 'delete' });
          return drawIdle();
        }
        return void exit();
      case 'interrupt':
        // A draft is cleared first; a second Ctrl+C in a row (or one on an empty prompt that
        // follows another) quits, so one stray press never ends the session.
        if (armed && textOf(editor) === '') return void exit();
        editor = createEditor(editor.history);
        quitArmed = true;
        hint = [QUIT_HINT];
        return drawIdle();
      case 'toggle-reasoning':
        showReasoning = !showReasoning;
        print([`Reasoning: ${showReasoning ? 'shown' : 'folded'} (Ctrl+O toggles)`]);
        return drawIdle();
      case 'redraw':
        refreshFooter();
        return drawIdle();
      case 'abort':
      case 'ignore':
        return;
    }
  }

  const onResize = (): void => {
    refreshFooter();
    if (mode === 'idle') drawIdle();
  };

  const onStop = (): void => {
    exitCode = 130;
    exitAfterTurn = true;
    // What runs is stopped as Esc would (a tool's process group included), then the session ends.
    if (turn) turn.abort.abort({ kind: 'aborted', code: 'MINICODE_E_ABORTED', message: 'stopped by a signal' });
    else if (shell) shell.onKey({ kind: 'interrupt' }, undefined);
    else if (mode === 'idle') void exit();
  };
  options.stop?.addEventListener('abort', onStop, { once: true });

  emitKeypressEvents(input as NodeJS.ReadableStream);
  input.setRawMode?.(true);
  input.resume();
  input.on('keypress', onKey);
  output.on('resize', onResize);
  out(BRACKETED_PASTE_ON);

  const p = session.provider;
  const head = session.sessionId ? `Session ${session.sessionId} resumed` : 'New session (stored at the first prompt)';
  print([
    `minicode chat · ${p.model} (${p.format}) · ${options.cwd}`,
    head,
    'Type /help for commands and keys; Ctrl+C twice quits.',
  ]);
  renderStored(session.storedEvents);
  drawIdle();
  return done;
}
