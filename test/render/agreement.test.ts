import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadMarkdown } from '../../lib/render/markdown/index.js';
import { createProjector } from '../../lib/acp/projection.js';
import { createEnveloper, type OutputEvent } from '../../lib/events/index.js';
import { formatDuration } from '../../lib/render/duration.js';
import { createJsonlRenderer } from '../../lib/render/jsonl.js';
import { createLinearRenderer } from '../../lib/render/linear.js';
import { viewOf } from '../../lib/render/state-view.js';
import { createTtyRenderer } from '../../lib/render/tty.js';
import { STREAMS, collector, drive, loadEvents } from './drive.js';
import { fakeTerminal, manualTimer, stripEscapes } from './tty-fake.js';

// The TTY renders Markdown once the tokenizer is loaded: load it first, so every run renders alike.
beforeAll(() => loadMarkdown());

/** toolCallId -> "status duration" as a person reads it from the settled lines. */
function fromText(text: string): Map<string, string> {
  const tools = new Map<string, string>();
  const line =
    /^[✓✗⊘◌!◐] (completed|failed|denied|cancelled|interrupted) \S+ \[([^\]]+)\](?: (\d+ms|\d+\.\ds|\d+m\d\ds))?/u;
  for (const row of stripEscapes(text).split(/[\r\n]/)) {
    const m = line.exec(row);
    if (!m) continue;
    expect(tools.has(m[2]!), `one final line for ${m[2]}`).toBe(false);
    tools.set(m[2]!, `${m[1]} ${m[3] ?? '-'}`);
  }
  return tools;
}

/** The same from the JSONL stream, the way a program reads it: first terminal per call wins. */
function fromJsonl(text: string): { tools: Map<string, string>; counts: Record<string, number> } {
  const records = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>);
  const started = new Map<string, number>();
  const tools = new Map<string, string>();
  for (const r of records) {
    if (r.type === 'tool.started') started.set(r.payload.toolCallId, Date.parse(r.timestamp));
    const m = /^tool\.(completed|failed|denied|cancelled)$/.exec(r.type);
    if (!m || tools.has(r.payload.toolCallId)) continue;
    const start = started.get(r.payload.toolCallId);
    const ms: number | undefined =
      r.payload.durationMs ?? (start === undefined ? undefined : Date.parse(r.timestamp) - start);
    tools.set(r.payload.toolCallId, `${m[1]} ${ms === undefined ? '-' : formatDuration(ms)}`);
  }
  for (const id of started.keys()) if (!tools.has(id)) tools.set(id, 'interrupted -');
  return { tools, counts: records.at(-1)!.tools };
}

/**
 * toolCallId -> status as an ACP client reads it from `session/update`s: a `tool_call` opens a
 * call, `tool_call_update`s change it, and once a call is `completed` or `failed` nothing may
 * change it again. ACP has no denied or cancelled status: those are `failed` with the reason in
 * `rawOutput`; a call left `pending` or `in_progress` is interrupted. ACP carries no durations.
 */
function fromAcp(events: OutputEvent[]): Map<string, string> {
  const projector = createProjector({ cwd: '/w' });
  const status = new Map<string, { status: string; rawOutput?: unknown }>();
  for (const update of events.flatMap((e) => projector.project(e)) as SessionUpdate[]) {
    if (update.sessionUpdate !== 'tool_call' && update.sessionUpdate !== 'tool_call_update') continue;
    const known = status.get(update.toolCallId);
    if (update.sessionUpdate === 'tool_call') expect(known, `one tool_call for ${update.toolCallId}`).toBeUndefined();
    else expect(known, `tool_call_update for ${update.toolCallId} after its tool_call`).toBeDefined();
    if (known)
      expect(['completed', 'failed'], `no update for ${update.toolCallId} after its terminal`).not.toContain(
        known.status,
      );
    status.set(update.toolCallId, {
      status: update.status ?? known?.status ?? 'pending',
      rawOutput: update.rawOutput ?? known?.rawOutput,
    });
  }
  const tools = new Map<string, string>();
  for (const [id, s] of status) {
    const raw = (s.rawOutput ?? {}) as { denied?: boolean; cancelled?: boolean };
    const read =
      s.status === 'completed'
        ? 'completed'
        : s.status !== 'failed'
          ? 'interrupted'
          : raw.denied
            ? 'denied'
            : raw.cancelled
              ? 'cancelled'
              : 'failed';
    tools.set(id, read);
  }
  return tools;
}

function renderAll(events: OutputEvent[]) {
  const linear = collector();
  const tty = collector();
  const jsonl = collector();
  // Verbose: the normal views leave call ids out, and the ids are what is compared here.
  drive(createLinearRenderer({ out: linear.write, viewOf, verbosity: 'verbose' }), events);
  drive(
    createTtyRenderer({
      out: tty.write,
      viewOf,
      verbosity: 'verbose',
      stream: fakeTerminal(48),
      env: {},
      clock: () => 0,
      timer: manualTimer(),
    }),
    events,
  );
  drive(createJsonlRenderer({ out: jsonl.write, viewOf }), events);
  return {
    linear: fromText(linear.text()),
    tty: fromText(tty.text()),
    jsonl: fromJsonl(jsonl.text()),
    acp: fromAcp(events),
  };
}

function expectAgreement(events: OutputEvent[]): Map<string, string> {
  const { linear, tty, jsonl, acp } = renderAll(events);
  expect(linear.size).toBeGreaterThan(0);
  expect([...tty]).toEqual([...linear]);
  expect(new Map([...jsonl.tools].sort())).toEqual(new Map([...linear].sort()));
  const statuses = new Map([...linear].map(([id, read]) => [id, read.split(' ')[0]!]));
  expect(new Map([...acp].sort())).toEqual(new Map([...statuses].sort()));
  const counts: Record<string, number> = { completed: 0, failed: 0, denied: 0, cancelled: 0, interrupted: 0 };
  for (const v of linear.values()) counts[v.split(' ')[0]!]! += 1;
  expect(jsonl.counts).toEqual(counts);
  return linear;
}

describe('the same run rendered by the linear, TTY, JSONL and ACP renderers', () => {
  it.each(STREAMS)('agrees on every tool status and duration in the %s stream', (stream) => {
    expectAgreement(loadEvents(stream));
  });

  it('agrees on the tool-run stream as expected, with a duration derived from timestamps where the payload had none', () => {
    expect(Object.fromEntries(expectAgreement(loadEvents('tool-run')))).toEqual({
      call_1: 'completed 840ms',
      call_2: 'failed 1.1s',
      call_3: 'completed 260ms',
      call_4: 'denied 30ms',
    });
  });

  it('agrees when a second terminal arrives for a call (first terminal wins) and when a terminal has no start', () => {
    let t = 0;
    const en = createEnveloper({ sessionId: 's_anomaly', clock: () => t });
    const events: OutputEvent[] = [];
    const push = (at: number, d: Parameters<typeof en.wrap>[0]) => {
      t = Date.UTC(2026, 0, 1) + at;
      events.push(en.wrap(d));
    };
    push(0, { type: 'task.started', payload: { taskId: 't' } });
    push(10, { type: 'tool.started', payload: { toolCallId: 'c1', name: 'bash' } });
    push(510, { type: 'tool.completed', payload: { toolCallId: 'c1', summary: 'ok' } });
    push(700, { type: 'tool.progress', payload: { toolCallId: 'c1', outputDelta: 'late output' } });
    push(900, { type: 'tool.failed', payload: { toolCallId: 'c1', cause: 'TOOL_ERROR', message: 'late' } });
    push(950, { type: 'tool.denied', payload: { toolCallId: 'c2', name: 'write', reason: 'policy' } });
    push(999, { type: 'task.completed', payload: { taskId: 't', reason: 'completed' } });
    expect(Object.fromEntries(expectAgreement(events))).toEqual({ c1: 'completed 500ms', c2: 'denied -' });
  });
});
