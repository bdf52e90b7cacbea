import { beforeAll, describe, expect, it } from 'vitest';
import { createEnveloper, type EventDraft, type OutputEvent } from '../../lib/events/index.js';
import { loadMarkdown } from '../../lib/render/markdown/index.js';
import { initialState, reduce, type ReducerState } from '../../lib/reducer/index.js';
import { activityLine, activityText } from '../../lib/render/activity.js';
import { viewOf } from '../../lib/render/state-view.js';
import { createTtyRenderer } from '../../lib/render/tty.js';
import { collector } from './drive.js';
import { fakeTerminal, manualTimer, stripEscapes } from './tty-fake.js';

beforeAll(() => loadMarkdown());

const T0 = Date.UTC(2026, 11, 7, 12);

function envelope(drafts: EventDraft[]): OutputEvent[] {
  let i = 0;
  const en = createEnveloper({ sessionId: 's_act', clock: () => T0 + 100 * i++ });
  return drafts.map((d) => en.wrap(d));
}

function stateOf(events: OutputEvent[]): ReducerState {
  let s = initialState('s_act');
  for (const e of events) s = reduce(s, e);
  return s;
}

/** The last frame the renderer drew: the text after its last erase. */
function lastFrame(text: string): string {
  const plain = stripEscapes(text);
  return plain.slice(plain.lastIndexOf('\r') + 1);
}

const started: EventDraft = { type: 'task.started', payload: { taskId: 't' } };

describe('the activity of a running turn', () => {
  it('says what happens, an approval first, then a running tool, a producer note, reasoning, text, else the wait', () => {
    const none = new Set<string>();
    expect(activityText(viewOf(stateOf(envelope([started]))), { streamed: none })).toBe('waiting for the model');
    const writing = envelope([started, { type: 'assistant.message.delta', payload: { messageId: 'm', delta: 'Hel' } }]);
    expect(activityText(viewOf(stateOf(writing)), { streamed: new Set(['m:m']) })).toBe('writing');
    // Text an earlier renderer left is not this turn's: still waiting.
    expect(activityText(viewOf(stateOf(writing)), { streamed: none })).toBe('waiting for the model');
    const thinking = envelope([
      started,
      { type: 'assistant.reasoning.delta', payload: { reasoningId: 'r', delta: 'hm' } },
    ]);
    expect(activityText(viewOf(stateOf(thinking)), { streamed: new Set(['r:r']) })).toBe('thinking');
    expect(
      activityText(viewOf(stateOf([...envelope([started])])), { streamed: none, note: 'compacting the conversation' }),
    ).toBe('compacting the conversation');
    const tool = envelope([
      started,
      { type: 'tool.started', payload: { toolCallId: 'c1', name: 'bash', title: 'npm test' } },
    ]);
    expect(activityText(viewOf(stateOf(tool)), { streamed: none, note: 'compacting the conversation' })).toBe(
      'running bash',
    );
    const asking = envelope([
      started,
      { type: 'tool.started', payload: { toolCallId: 'c1', name: 'bash', title: 'npm test' } },
      {
        type: 'user.approval.requested',
        payload: { approvalId: 'a1', toolCallId: 'c1', toolName: 'bash', action: 'npm test' },
      },
    ]);
    expect(activityText(viewOf(stateOf(asking)), { streamed: none })).toBe('waiting for approval');
  });

  it('prints whole seconds under a minute, then the duration format, and the interrupt hint', () => {
    expect(activityLine('thinking', 12_900, '⠋', 'esc to interrupt')).toBe('⠋ thinking (12s · esc to interrupt)');
    expect(activityLine('thinking', 125_000, '⠋', '')).toBe('⠋ thinking (2m05s)');
    expect(activityLine('thinking', undefined, '⠋', '')).toBe('⠋ thinking');
  });

  it('moves on the timer while no event arrives, and stops with the turn', () => {
    const c = collector();
    const timer = manualTimer();
    let now = T0;
    const renderer = createTtyRenderer({
      out: c.write,
      viewOf,
      stream: fakeTerminal(80),
      env: { NO_COLOR: '1' },
      clock: () => now,
      timer,
    });
    const [start] = envelope([started]);
    const state = reduce(initialState('s_act'), start!);
    renderer.onEvent(start!, state);
    expect(lastFrame(c.text())).toBe('⠋ waiting for the model (0s · ctrl+c to interrupt)');
    expect(timer.active()).toBe(1);
    now += 2_300;
    timer.tick();
    expect(lastFrame(c.text())).toBe('⠙ waiting for the model (2s · ctrl+c to interrupt)');
    renderer.finish(state);
    expect(timer.active()).toBe(0);
    const after = c.text().length;
    timer.tick();
    expect(c.text().length).toBe(after);
  });

  it('names a producer note (compaction) until the next event overtakes it', () => {
    const c = collector();
    const renderer = createTtyRenderer({
      out: c.write,
      viewOf,
      stream: fakeTerminal(80),
      env: { NO_COLOR: '1' },
      clock: () => T0,
      timer: manualTimer(),
      interruptHint: 'esc to interrupt',
    });
    const events = envelope([
      started,
      { type: 'task.progress', payload: { taskId: 't', message: 'compacting the conversation' } },
      { type: 'assistant.message.delta', payload: { messageId: 'm', delta: 'Done.' } },
    ]);
    let state = initialState('s_act');
    const frames: string[] = [];
    for (const e of events) {
      state = reduce(state, e);
      renderer.onEvent(e, state);
      frames.push(lastFrame(c.text()));
    }
    expect(frames[1]).toMatch(/^⠋ compacting the conversation \(\ds · esc to interrupt\)$/);
    expect(frames[2]).toMatch(/^Done\.\n⠋ writing \(\ds · esc to interrupt\)$/);
  });

  it('is never written when the output is not a terminal', () => {
    const c = collector();
    const renderer = createTtyRenderer({
      out: c.write,
      viewOf,
      stream: fakeTerminal(80, false),
      env: {},
      timer: manualTimer(),
    });
    const events = envelope([started, { type: 'assistant.message.delta', payload: { messageId: 'm', delta: 'Hel' } }]);
    let state = initialState('s_act');
    for (const e of events) {
      state = reduce(state, e);
      renderer.onEvent(e, state);
    }
    renderer.finish(state);
    expect(c.text()).not.toMatch(/waiting for the model|writing|to interrupt/);
  });
});
