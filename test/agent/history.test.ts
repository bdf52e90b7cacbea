import { describe, expect, it } from 'vitest';
import { conversationFromEvents } from '../../lib/agent/history.js';
import { createEnveloper, draft } from '../../lib/events/index.js';

describe('conversationFromEvents', () => {
  const events = () => {
    const env = createEnveloper({ sessionId: 'ses_h', clock: () => 0 });
    return [
      env.wrap(draft('user.message.received', { messageId: 'u1', text: 'list files' }, { turnId: 1 })),
      env.wrap(draft('assistant.message.completed', { messageId: 'm1', text: 'Looking.' }, { turnId: 1, stepId: 1 })),
      env.wrap(
        draft(
          'assistant.tool_call.completed',
          { toolCallId: 'c1', name: 'glob', argumentsText: '{"pattern":"*"}' },
          { turnId: 1, stepId: 1 },
        ),
      ),
      env.wrap(
        draft(
          'assistant.tool_call.completed',
          { toolCallId: 'c2', name: 'bash', argumentsText: '{"command":"ls"}' },
          { turnId: 1, stepId: 1 },
        ),
      ),
      env.wrap(
        draft(
          'tool.failed',
          { toolCallId: 'c1', name: 'glob', cause: 'TOOL_ERROR', message: 'bad pattern', hint: 'use **' },
          { turnId: 1, stepId: 1 },
        ),
      ),
      // c2 never reported a result: the process stopped here.
    ];
  };

  it('rebuilds user, assistant and tool messages, answering a call that has no result', () => {
    const rebuilt = conversationFromEvents(events());
    expect(rebuilt.messages).toEqual([
      { role: 'user', text: 'list files' },
      {
        role: 'assistant',
        text: 'Looking.',
        toolCalls: [
          { id: 'c1', name: 'glob', argumentsText: '{"pattern":"*"}' },
          { id: 'c2', name: 'bash', argumentsText: '{"command":"ls"}' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', name: 'glob', content: 'Error: bad pattern\nHint: use **', isError: true },
      {
        role: 'tool',
        toolCallId: 'c2',
        name: 'bash',
        content: 'Cancelled: no result was recorded for this tool call',
        isError: true,
      },
    ]);
    expect(rebuilt.nextTurn).toBe(2);
    expect(rebuilt.nextSeq).toBe(5);
  });

  it('shows the images tools returned after the step results, naming those whose bytes are gone', () => {
    const env = createEnveloper({ sessionId: 'ses_i', clock: () => 0 });
    const ref = (name: string, digest: string) => ({
      name,
      mediaType: 'image/png',
      width: 2,
      height: 1,
      content: { ref: digest, size: 3, mediaType: 'image/png' },
    });
    const ids = { turnId: 1, stepId: 1 };
    const stored = [
      env.wrap(draft('user.message.received', { messageId: 'u1', text: 'look' }, { turnId: 1 })),
      env.wrap(
        draft('assistant.tool_call.completed', { toolCallId: 'a', name: 'read_image', argumentsText: '{}' }, ids),
      ),
      env.wrap(
        draft('assistant.tool_call.completed', { toolCallId: 'b', name: 'read_image', argumentsText: '{}' }, ids),
      ),
      env.wrap(
        draft(
          'tool.completed',
          { toolCallId: 'b', name: 'read_image', summary: 'b', output: 'B', images: [ref('b.png', 'sha256:bb')] },
          ids,
        ),
      ),
      env.wrap(
        draft(
          'tool.completed',
          { toolCallId: 'a', name: 'read_image', summary: 'a', output: 'A', images: [ref('a.png', 'sha256:aa')] },
          ids,
        ),
      ),
    ];
    const bytes = new Map([['sha256:aa', new Uint8Array([1, 2, 3])]]);
    const { messages } = conversationFromEvents(stored, (r) => bytes.get(r));
    expect(messages.slice(2)).toEqual([
      { role: 'tool', toolCallId: 'a', name: 'read_image', content: 'A' },
      { role: 'tool', toolCallId: 'b', name: 'read_image', content: 'B' },
      {
        role: 'user',
        text: 'The image read: [image a.png 2x1 image/png]\n\n(not available any more: [image b.png 2x1 image/png])',
        images: [{ mediaType: 'image/png', data: 'AQID', name: 'a.png', width: 2, height: 1 }],
        fromTools: true,
      },
    ]);
    // Without any bytes the images are only named.
    expect(conversationFromEvents(stored).messages.at(-1)).toEqual({
      role: 'user',
      text: 'The tools returned images (not available any more: [image a.png 2x1 image/png] [image b.png 2x1 image/png])',
      fromTools: true,
    });
  });

  it('gives an empty conversation for no events', () => {
    expect(conversationFromEvents([])).toEqual({ messages: [], nextTurn: 1, nextSeq: 0 });
  });
});
