import { beforeAll, describe, expect, it } from 'vitest';
import { loadMarkdown } from '../../lib/render/markdown/index.js';
import { createEnveloper, type EventDraft, type OutputEvent } from '../../lib/events/index.js';
import { initialState, reduce, type ReducerState } from '../../lib/reducer/index.js';
import { colorLevel } from '../../lib/render/color.js';
import { viewOf } from '../../lib/render/state-view.js';
import { createTtyRenderer, eraseRows, type TtyRendererOptions } from '../../lib/render/tty.js';
import { rowsFor } from '../../lib/render/width.js';
import { collector, drive, loadEvents } from './drive.js';
import { fakeTerminal, manualTimer, stripEscapes } from './tty-fake.js';

// The TTY renders Markdown once the tokenizer is loaded: load it first, so every run renders alike.
beforeAll(() => loadMarkdown());

const T0 = Date.UTC(2026, 10, 30, 12);
const SGR = /\u001b\[[0-9;]*m/;
const CURSOR = /\u001b\[(?:\d*[AK]|\?25[lh])/;

function session(drafts: EventDraft[], step = 100): OutputEvent[] {
  let i = 0;
  const en = createEnveloper({ sessionId: 's_tty', clock: () => T0 + step * i++ });
  return drafts.map((d) => en.wrap(d));
}

function tty(extra: Partial<TtyRendererOptions<ReducerState>> = {}) {
  const c = collector();
  const timer = manualTimer();
  let now = T0;
  const renderer = createTtyRenderer({
    out: c.write,
    viewOf,
    stream: fakeTerminal(60),
    env: { NO_COLOR: '1' },
    clock: () => now,
    timer,
    ...extra,
  });
  return { c, timer, renderer, setNow: (ms: number) => void (now = ms) };
}

describe('the colour decision', () => {
  it('follows FORCE_COLOR, then NO_COLOR, then TTY-ness', () => {
    expect(colorLevel({}, true)).toBe(1);
    expect(colorLevel({}, false)).toBe(0);
    expect(colorLevel({ NO_COLOR: '1' }, true)).toBe(0);
    expect(colorLevel({ NO_COLOR: '' }, true)).toBe(1);
    expect(colorLevel({ FORCE_COLOR: '1' }, false)).toBe(1);
    expect(colorLevel({ FORCE_COLOR: '0' }, true)).toBe(0);
    expect(colorLevel({ FORCE_COLOR: '3', NO_COLOR: '1' }, false)).toBe(3);
    expect(colorLevel({ TERM: 'dumb' }, true)).toBe(0);
    expect(colorLevel({ TERM: 'xterm-256color' }, true)).toBe(2);
  });
});

describe('the TTY renderer', () => {
  it('falls back to plain linear output when the stream is not a TTY', () => {
    const c = collector();
    drive(
      createTtyRenderer({ out: c.write, viewOf, stream: fakeTerminal(80, false), env: {} }),
      loadEvents('tool-run'),
    );
    expect(c.text()).not.toMatch(/\u001b/);
    expect(c.text()).toContain('✓ bash(npm run lint) completed 840ms - exit 0, 12 lines');
  });

  it('colours only the labels on a non-TTY under FORCE_COLOR, and never moves the cursor there', () => {
    const c = collector();
    drive(
      createTtyRenderer({ out: c.write, viewOf, stream: fakeTerminal(80, false), env: { FORCE_COLOR: '1' } }),
      loadEvents('tool-run'),
    );
    expect(c.text()).toMatch(SGR);
    expect(c.text()).not.toMatch(CURSOR);
    expect(c.text()).toContain('\nFixed the unused variable in src/a.ts.\n');
  });

  it('under NO_COLOR writes no SGR but keeps every glyph and word', () => {
    const { c, renderer } = tty();
    drive(renderer, loadEvents('tool-run'));
    expect(c.text()).not.toMatch(SGR);
    for (const label of [
      '✓ bash(',
      ' completed ',
      '✗ read_file(',
      ' failed ',
      '⊘ git_commit(',
      ' denied ',
      '? Allow git_commit',
      '△ warning',
    ])
      expect(c.text()).toContain(label);
  });

  it('prints copyable message text without escapes or padding on its lines', () => {
    const { c, renderer } = tty({ env: {} });
    drive(renderer, loadEvents('tool-run'));
    const lines = c.text().split('\n');
    expect(lines).toContain('I could not commit: git_commit was denied.');
  });

  it('shows a running tool with a spinner and elapsed time from the event timestamps and the injected clock', () => {
    const { c, timer, renderer, setNow } = tty();
    const events = session([
      { type: 'task.started', payload: { taskId: 't' } },
      { type: 'tool.started', payload: { toolCallId: 'c1', name: 'bash', title: 'sleep 5' } },
    ]);
    let state = initialState('s_tty');
    for (const e of events) {
      setNow(Date.parse(e.timestamp) + 1000); // the event arrives 1 s after it was stamped: only later wall time counts
      state = reduce(state, e);
      renderer.onEvent(e, state);
    }
    expect(c.text()).toContain('⠋ bash(sleep 5) 0ms');
    expect(timer.active()).toBe(1);
    setNow(Date.parse(events[1]!.timestamp) + 1000 + 2500);
    timer.tick();
    expect(c.text()).toContain('⠙ bash(sleep 5) 2.5s');
    renderer.finish(state);
    expect(timer.active()).toBe(0);
    expect(c.text()).toContain('! bash(sleep 5) interrupted - no terminal event');
    expect(c.text().endsWith('\u001b[?25h')).toBe(true);
  });

  it('folds reasoning into one "thinking…" line by default and shows it when asked', () => {
    const events = session([
      { type: 'assistant.reasoning.delta', payload: { reasoningId: 'r', delta: 'secret plan' } },
    ]);
    const folded = tty();
    let state = reduce(initialState('s_tty'), events[0]!);
    folded.renderer.onEvent(events[0]!, state);
    expect(folded.c.text()).toContain('thinking…');
    expect(folded.c.text()).not.toContain('secret plan');
    const open = tty({ showReasoning: true });
    state = reduce(initialState('s_tty'), events[0]!);
    open.renderer.onEvent(events[0]!, state);
    expect(open.c.text()).toContain('secret plan');
  });

  it('erases the live region by the rows it takes at the CURRENT width after a resize', () => {
    const c = collector();
    const term = fakeTerminal(60);
    const renderer = createTtyRenderer({
      out: c.write,
      viewOf,
      stream: term,
      env: { NO_COLOR: '1' },
      clock: () => T0,
      timer: manualTimer(),
    });
    const events = session([
      {
        type: 'tool.started',
        payload: { toolCallId: 'call_with_a_long_identifier', name: 'bash', title: 'npm run build -- --verbose' },
      },
    ]);
    const state = reduce(initialState('s_tty'), events[0]!);
    renderer.onEvent(events[0]!, state);
    const live = stripEscapes(c.text()).split('\n').at(-1)!;
    expect(rowsFor(live, 60)).toBe(1);
    const before = c.text().length;
    term.resize(20); // a reflowing terminal now shows that line on several rows
    const redraw = c.text().slice(before);
    expect(redraw.startsWith(eraseRows(rowsFor(live, 20)))).toBe(true);
    expect(rowsFor(live, 20)).toBeGreaterThan(1);
    // ...and the new live line fits the new width.
    expect(
      stripEscapes(redraw)
        .split(/[\r\n]/)
        .at(-1)!.length,
    ).toBeLessThanOrEqual(19);
  });

  it('neutralises escape sequences in untrusted tool titles', () => {
    const { c, renderer } = tty();
    drive(renderer, loadEvents('approval'));
    expect(c.text()).toContain('bash(rm -rf build evil)');
    expect(c.text()).not.toContain('[call_a]');
    expect(stripEscapes(c.text())).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(c.text()).not.toContain('pwned');
  });
});
