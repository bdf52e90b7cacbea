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

  it('gives an empty conversation for no events', () => {
    expect(conversationFromEvents([])).toEqual({ messages: [], nextTurn: 1, nextSeq: 0 });
  });
});
