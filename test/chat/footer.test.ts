/**
 * The interactive footer's figures: the context estimate is the whole prompt the provider read
 * (cached tokens included), so it does not fall after the first answer of a cached session; the
 * footer names the model, the approval mode and the keys of the current mode.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { footerLines, promptTokensOf, statusLines, type Observed } from '../../lib/chat/observe.js';
import { providerSettings } from '../../lib/agent/provider-settings.js';
import { runLimits } from '../../lib/agent/run-limits.js';
import { toolEnvironment } from '../../lib/agent/tool-environment.js';
import { createChatSession } from '../../lib/chat/session.js';
import { openReplayProvider } from '../../lib/replay/provider.js';
import { openStore } from '../../lib/store/index.js';
import { ROOT } from '../helpers/cli.js';

const observed: Observed = {
  contextTokens: 2_611,
  anchored: true,
  windowTokens: 200_000,
  usage: { inputTokens: 251, outputTokens: 67 },
  costUsd: 0.0021,
  model: 'claude-sonnet-4-5',
  approvalMode: 'ask',
};

describe('the footer', () => {
  it('counts cached prompt tokens where the provider reports them apart from the input', () => {
    expect(promptTokensOf({ inputTokens: 111, cacheReadTokens: 2400, cacheWriteTokens: 10 }, false)).toBe(2521);
    expect(promptTokensOf({ inputTokens: 2500, cacheReadTokens: 2400 }, true)).toBe(2500);
    expect(promptTokensOf({ inputTokens: 900 }, false)).toBe(900);
    expect(promptTokensOf({}, false)).toBeUndefined();
  });

  it('names the model, the approval mode and the keys, on one line when it fits', () => {
    expect(footerLines(observed, 99, 'Esc stops')).toEqual([
      'Context: ~2,611 of 200,000 tokens (1%)',
      'Spend: 251 in, 67 out, $0.0021 est. · Budget: none',
      'Model: claude-sonnet-4-5 · approvals: ask · Esc stops',
    ]);
    const narrow = footerLines(observed, 39, '@file Tab · !cmd · Ctrl+R');
    expect(narrow.slice(-2)).toEqual(['claude-sonnet-4-5 · approvals: ask', '@file Tab · !cmd · Ctrl+R']);
    for (const line of narrow) expect(line.length).toBeLessThanOrEqual(39);
  });

  it('explains the context figure in /status', () => {
    const status = statusLines(observed);
    const at = status.findIndex((l) => l.startsWith('Context:'));
    expect(status[at]).toMatch(/window estimate, anchored to provider usage$/);
    expect(status[at + 1]).toMatch(/next request: system prompt \+ tools \+ messages, cached included/);
    expect(status[at + 1]!.length).toBeLessThanOrEqual(80);
  });
});

describe('a chat session whose prompts are read from the cache', () => {
  it('keeps the context figure from falling after the first answer', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-footer-'));
    const store = openStore({ dir: path.join(dir, 'store') });
    const replay = await openReplayProvider(path.join(ROOT, 'test/cassettes/chat-cached'));
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
      const before = session.observed().contextTokens;
      await session.turn('hello', {});
      const first = session.observed();
      // The provider read 111 + 3,600 cached tokens: the estimate starts from all of them.
      expect(first.anchored).toBe(true);
      expect(first.contextTokens).toBeGreaterThanOrEqual(3_711);
      expect(first.contextTokens).toBeGreaterThan(before);
      await session.turn('again', {});
      expect(session.observed().contextTokens).toBeGreaterThanOrEqual(first.contextTokens);
      await session.close();
    } finally {
      await replay.close();
      await store.close();
    }
  });
});
