import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { conversationFromEvents as rebuildConversation } from '../../lib/agent/history.js';
const conversationFromEvents = (events: Parameters<typeof rebuildConversation>[0]) =>
  rebuildConversation(events).messages;
import { providerSettings } from '../../lib/agent/provider-settings.js';
import { runLimits } from '../../lib/agent/run-limits.js';
import { toolEnvironment } from '../../lib/agent/tool-environment.js';
import { createChatSession } from '../../lib/chat/session.js';
import type { ConversationMessage } from '../../lib/agent/conversation.js';
import { openReplayProvider } from '../../lib/replay/provider.js';
import { openStore } from '../../lib/store/index.js';
import { rebuild } from '../../lib/reducer/index.js';
import { ROOT } from '../helpers/cli.js';

const withoutReasoning = (messages: ConversationMessage[]): ConversationMessage[] =>
  messages.map((m) => {
    if (m.role !== 'assistant') return m;
    const { reasoning: _r, ...rest } = m;
    return rest;
  });

describe('a chat session rebuilt from the store', () => {
  it('gives the conversation the live turns sent, and resuming it continues the same session', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-chatconv-'));
    fs.writeFileSync(path.join(dir, 'README.md'), '# chat test project\n');
    const store = openStore({ dir: path.join(dir, 'store') });
    const replay = await openReplayProvider(path.join(ROOT, 'test/cassettes/chat-two-turn'));
    try {
      const provider = providerSettings({
        format: replay.format,
        model: replay.model,
        baseUrl: replay.baseUrl,
        apiKey: replay.apiKey,
      });
      const session = createChatSession({
        provider,
        limits: runLimits(),
        environment: toolEnvironment(dir, { policy: { mode: 'ask' }, env: {} }),
        store,
      });
      await session.turn('hi there', {});
      const last = await session.turn('what is in the readme', {});
      await session.close();
      const events = store.readSession(last.sessionId);
      expect(conversationFromEvents(events)).toEqual(withoutReasoning(last.result.messages));

      // Reopened: same id, history rebuilt, the next turn is task-3; one more session.ended reopens nothing twice.
      const resumed = createChatSession({
        provider,
        limits: runLimits(),
        environment: toolEnvironment(dir, { policy: { mode: 'ask' }, env: {} }),
        store,
        resume: last.sessionId,
      });
      expect(resumed.sessionId).toBe(last.sessionId);
      expect(resumed.transcript()).toHaveLength(6);
      const state = rebuild(store.readSession(last.sessionId));
      expect(state.anomalies).toEqual([]);
      expect(state.session.endedAt).toBeDefined();
    } finally {
      await replay.close();
      await store.close();
    }
  });

  it('answers a tool call that has no stored terminal with a cancelled result', () => {
    const base = {
      schema: 'minicode.output.v1',
      sessionId: 's',
      timestamp: '2026-01-01T00:00:00.000Z',
      source: 'runtime',
      severity: 'info',
      status: 'completed',
      visibility: ['normal'],
    } as const;
    const events = [
      {
        ...base,
        eventId: 's:0',
        seq: 0,
        type: 'user.message.received',
        turnId: 1,
        payload: { messageId: 'user-1', text: 'go' },
      },
      {
        ...base,
        eventId: 's:1',
        seq: 1,
        type: 'assistant.tool_call.completed',
        turnId: 1,
        stepId: 1,
        payload: { toolCallId: 'c1', name: 'bash', argumentsText: '{"command":"ls"}' },
      },
    ] as never[];
    expect(conversationFromEvents(events)).toEqual([
      { role: 'user', text: 'go' },
      { role: 'assistant', toolCalls: [{ id: 'c1', name: 'bash', argumentsText: '{"command":"ls"}' }] },
      {
        role: 'tool',
        toolCallId: 'c1',
        name: 'bash',
        content: 'Cancelled: no result was recorded for this tool call',
        isError: true,
      },
    ]);
  });
});
