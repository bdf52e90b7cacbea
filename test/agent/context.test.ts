import { describe, expect, it } from 'vitest';
import { fromTranscript, toTranscript } from '../../lib/agent/context.js';
import { contextWindowOf, DEFAULT_CONTEXT_WINDOW } from '../../lib/agent/context-window.js';
import type { ConversationMessage } from '../../lib/agent/conversation.js';
import { foldTranscript } from '../../lib/control/fold.js';

const conversation: ConversationMessage[] = [
  { role: 'user', text: 'first task' },
  {
    role: 'assistant',
    text: 'reading',
    toolCalls: [{ id: 'c1', name: 'read_file', argumentsText: '{"path":"a"}', signature: 'sig-1' }],
    reasoning: [{ format: 'anthropic', item: { type: 'thinking', signature: 's1' } }],
  },
  { role: 'tool', toolCallId: 'c1', name: 'read_file', content: 'x'.repeat(5000), isError: true },
  { role: 'user', text: 'second task' },
  {
    role: 'assistant',
    text: 'done',
    reasoning: [{ format: 'anthropic', item: { type: 'thinking', signature: 's2' } }],
  },
];

describe('the conversation <-> transcript mapping', () => {
  it('gives back the very same messages when nothing was compacted', () => {
    const back = fromTranscript(toTranscript(conversation, 'anthropic'), conversation);
    for (const [i, m] of back.entries()) expect(m).toBe(conversation[i]);
  });

  it('pins the running task (the last user message) so a fold never removes it', () => {
    const t = toTranscript(conversation, 'anthropic');
    expect(t[3]).toEqual({ role: 'user', text: 'second task', pinned: true });
    expect(t[0]).toEqual({ role: 'user', text: 'first task' });
  });

  it('keeps tool names, error flags and call signatures on folded messages, and untouched ones verbatim', () => {
    const folded = foldTranscript(toTranscript(conversation, 'anthropic'), { keepRecentUnits: 2 });
    expect(folded.changed).toBe(true);
    const back = fromTranscript(folded.messages, conversation);
    expect(back[2]).toMatchObject({ role: 'tool', toolCallId: 'c1', name: 'read_file', isError: true });
    expect((back[2] as { content: string }).content.length).toBeLessThan(1000);
    expect(back[1]).toMatchObject({ toolCalls: [{ id: 'c1', signature: 'sig-1' }] });
    expect(back[4]).toBe(conversation[4]);
  });
});

describe('a compaction folded again from its record', () => {
  it('removes the same units by count as the target removed, so a rebuilt session gets the same conversation', () => {
    const many: ConversationMessage[] = [];
    for (let i = 0; i < 6; i++)
      many.push({ role: 'user', text: `task ${i} ${'y'.repeat(2000)}` }, { role: 'assistant', text: `answer ${i}` });
    const transcript = toTranscript(many, 'openai-chat');
    const byTarget = foldTranscript(transcript, { keepRecentUnits: 2, targetTokens: 600 });
    expect(byTarget.removedUnits).toBeGreaterThan(0);
    const byCount = foldTranscript(transcript, { keepRecentUnits: 2, removeUnits: byTarget.removedUnits });
    expect(byCount.messages).toEqual(byTarget.messages);
    expect(byCount.removedMessages).toBe(byTarget.removedMessages);
  });
});

describe('context windows', () => {
  it('come from the table by model prefix, an explicit window first, a default otherwise', () => {
    expect(contextWindowOf('anthropic', 'claude-sonnet-4-5')).toBe(200_000);
    expect(contextWindowOf('openai-chat', 'gpt-4.1-mini')).toBe(1_047_576);
    expect(contextWindowOf('openai-chat', 'gpt-4.1-mini', 5000)).toBe(5000);
    expect(contextWindowOf('openai-chat', 'my-local-model')).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(contextWindowOf('ollama', 'llama3.2')).toBe(DEFAULT_CONTEXT_WINDOW);
  });
});
