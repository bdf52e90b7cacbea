import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { draft, type EventDraft } from '../../lib/events/index.js';
import { createEventScrubber } from '../../lib/scrub/scrub-stage.js';

// Hand-made events; fake secrets built at run time in the published formats.
const ghp = 'ghp_' + 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5';
const ESC = '\u001b';

function run(drafts: EventDraft[], options = {}): EventDraft[] {
  const s = createEventScrubber({ secrets: [], ...options });
  return [...drafts.flatMap((d) => s.push(d)), ...s.end()];
}

function deltasOf(events: EventDraft[], type: EventDraft['type']): string {
  return events
    .filter((e) => e.type === type)
    .map((e) => {
      const p = e.payload as { delta?: string; outputDelta?: string };
      return p.delta ?? p.outputDelta ?? '';
    })
    .join('');
}

describe('the event scrubber', () => {
  it('catches a secret split across three message deltas', () => {
    const text = `Your token is ${ghp}, keep it.`;
    const parts = [text.slice(0, 20), text.slice(20, 35), text.slice(35)];
    const out = run([
      ...parts.map((delta) => draft('assistant.message.delta', { messageId: 'm1', delta })),
      draft('assistant.message.completed', { messageId: 'm1', text }),
    ]);
    const streamed = deltasOf(out, 'assistant.message.delta');
    expect(streamed).toBe('Your token is [REDACTED:github-token], keep it.');
    expect(JSON.stringify(out)).not.toContain(ghp.slice(8));
    const completed = out.find((e) => e.type === 'assistant.message.completed');
    expect(completed?.payload).toEqual({ messageId: 'm1', text: streamed });
  });

  it('flushes held-back text as one more delta before the completion event', () => {
    const out = run([
      draft('assistant.message.delta', { messageId: 'm', delta: 'ends with gh' }),
      draft('assistant.message.completed', { messageId: 'm', text: 'ends with gh' }),
    ]);
    expect(out.map((e) => e.type)).toEqual([
      'assistant.message.delta',
      'assistant.message.delta',
      'assistant.message.completed',
    ]);
    expect(deltasOf(out, 'assistant.message.delta')).toBe('ends with gh');
  });

  it('keeps channels apart by type and id, and catches an escape split across tool output deltas', () => {
    const out = run([
      draft('tool.progress', { toolCallId: 't1', outputDelta: `ok ${ESC}` }),
      draft('assistant.reasoning.delta', { reasoningId: 'r1', delta: '[31m is literal here' }),
      draft('tool.progress', { toolCallId: 't1', outputDelta: '[31mred' }),
      draft('tool.completed', { toolCallId: 't1', summary: `done ${ESC}]0;title\u0007` }),
      draft('assistant.reasoning.completed', {
        reasoningId: 'r1',
        text: '[31m is literal here',
        signature: 'sig+/==',
        data: `opaque ${ghp}`,
      }),
    ]);
    expect(deltasOf(out, 'tool.progress')).toBe('ok red');
    expect(deltasOf(out, 'assistant.reasoning.delta')).toBe('[31m is literal here');
    const completed = out.find((e) => e.type === 'tool.completed');
    expect((completed!.payload as { summary: string }).summary).toBe('done ');
    const reasoning = out.find((e) => e.type === 'assistant.reasoning.completed');
    // Opaque fields go back to the provider verbatim.
    expect(reasoning?.payload).toMatchObject({ signature: 'sig+/==', data: `opaque ${ghp}` });
  });

  it('scrubs every other string, nested objects and arrays included, with one-line fields escaped', () => {
    const [started] = run([
      draft('tool.started', {
        toolCallId: 'c1',
        name: `read_file${ESC}[2K\nwrite_file`,
        input: { cmd: ['curl', '-H', `Authorization: Bearer ${ghp}`], nested: { password: 'hunter22x' } },
        locations: [{ path: 'src/a.ts\u202e' }],
        inputRef: { ref: 'sha256:' + 'a'.repeat(64), size: 1 },
      }),
    ]);
    const p = started?.payload as Record<string, unknown>;
    expect(p['name']).toBe('read_file\\nwrite_file');
    expect(JSON.stringify(p['input'])).not.toContain(ghp);
    expect(p['input']).toMatchObject({ nested: { password: 'hunter22x' } }); // a key, not an assignment in text
    expect(p['locations']).toEqual([{ path: 'src/a.ts' }]);
    expect(p['inputRef']).toEqual({ ref: 'sha256:' + 'a'.repeat(64), size: 1 });
  });

  it('copies only the path to a changed string and never mutates its input', () => {
    const input = {
      toolCallId: 'c1',
      name: 'shell',
      input: { cmd: ['curl', '-H', `Authorization: Bearer ${ghp}`], cwd: { dir: '/w' } },
      locations: [{ path: 'src/a.ts' }],
    };
    const before = JSON.stringify(input);
    const [started] = run([draft('tool.started', input)]);
    const p = started?.payload as typeof input;
    expect(JSON.stringify(input)).toBe(before);
    expect(p).not.toBe(input);
    expect(p.input).not.toBe(input.input);
    expect(p.input.cmd).not.toBe(input.input.cmd);
    expect(p.input.cmd[2]).not.toContain(ghp);
    // Unchanged parts are shared: events are values and nothing mutates them once emitted.
    expect(p.input.cwd).toBe(input.input.cwd);
    expect(p.locations).toBe(input.locations);
    const [plain] = run([draft('tool.started', { toolCallId: 'c2', name: 'ls', input: { a: [1, 'b'] } })]);
    expect(plain?.payload).toEqual({ toolCallId: 'c2', name: 'ls', input: { a: [1, 'b'] } });
  });

  it('masks exact credential values from the environment it was given', () => {
    const out = run([draft('task.progress', { taskId: 't', message: 'using value-of-my-key-123' })], {
      secrets: undefined,
      env: { MY_API_KEY: 'value-of-my-key-123' },
    });
    expect((out[0]!.payload as { message: string }).message).toBe('using [REDACTED:env:MY_API_KEY]');
  });

  it('flushes every open channel at end()', () => {
    const s = createEventScrubber({ secrets: [] });
    const first = s.push(draft('assistant.tool_call.delta', { toolCallId: 'x', delta: '{"a": "sk-' }));
    expect(deltasOf(first, 'assistant.tool_call.delta')).toBe('{"a": "');
    const rest = s.end();
    expect(deltasOf(rest, 'assistant.tool_call.delta')).toBe('sk-');
  });

  it('streams deltas whose concatenation equals the scrubbed completed text, at any split (property)', () => {
    const pieces = fc.constantFrom(
      ghp,
      'password = "hunter22x"',
      `${ESC}[31m`,
      `${ESC}]8;;https://x${ESC}\\`,
      'plain words ',
      '\r\n',
      '\u202e',
      'postgres://u:pw1234@h/db ',
      '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 10 }), fc.array(fc.nat(300), { maxLength: 6 }), (parts, cuts) => {
        const text = parts.join('');
        const sorted = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const deltas: string[] = [];
        let prev = 0;
        for (const c of [...sorted, text.length]) {
          deltas.push(text.slice(prev, c));
          prev = c;
        }
        const out = run([
          ...deltas.map((delta) => draft('assistant.message.delta', { messageId: 'm', delta })),
          draft('assistant.message.completed', { messageId: 'm', text }),
        ]);
        const completed = out.find((e) => e.type === 'assistant.message.completed')?.payload as { text: string };
        expect(deltasOf(out, 'assistant.message.delta')).toBe(completed.text);
        expect(completed.text).not.toContain(ghp);
        expect(completed.text).not.toContain(ESC);
      }),
      { numRuns: 200 },
    );
  });
});
