/**
 * What the session-changing chat commands do underneath the terminal: `/compact` folds the
 * conversation the next request carries and stores `context.compacted` (reason `manual`), a
 * reopened session keeps the provider and model it ran with, and an unknown name gets the
 * closest known one. The provider is a loopback replay server over the hand-made
 * `chat-two-turn` cassette.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { providerSettings } from '../../lib/agent/provider-settings.js';
import { runLimits } from '../../lib/agent/run-limits.js';
import { toolEnvironment } from '../../lib/agent/tool-environment.js';
import { createChatSession, resumeFlags } from '../../lib/chat/session.js';
import { closestName, editDistance } from '../../lib/did-you-mean.js';
import { openReplayProvider } from '../../lib/replay/provider.js';
import { openStore } from '../../lib/store/index.js';
import { ROOT } from '../helpers/cli.js';

const LONG_PROMPT = `${'please keep this long request in mind: '.repeat(12)}thanks`;

async function withSession<T>(
  run: (s: {
    session: ReturnType<typeof createChatSession>;
    store: ReturnType<typeof openStore>;
    requests: () => string[];
    /** The stored session `id` reopened, as `--continue` / `--resume` do. */
    open: (id: string) => ReturnType<typeof createChatSession>;
  }) => Promise<T>,
): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-chat-commands-'));
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
    const open = (resume?: string) =>
      createChatSession({
        provider,
        limits: runLimits(),
        environment: toolEnvironment(dir, { policy: { mode: 'ask' }, env: {} }),
        store,
        resume,
      });
    return await run({
      session: open(),
      store,
      requests: () => replay.server.requests.map((r) => r.body.toString('utf8')),
      open,
    });
  } finally {
    await replay.close();
    await store.close();
  }
}

describe('/compact', () => {
  it('folds the older messages so the next request carries the shorter conversation, and stores that it did', async () => {
    await withSession(async ({ session, store, requests }) => {
      await session.turn(LONG_PROMPT, {});
      await session.turn('what is in the readme', {});
      const fold = await session.compact();
      expect(fold.changed).toBe(true);
      expect(fold.afterTokens).toBeLessThan(fold.beforeTokens);
      const first = session.transcript()[0]!;
      expect(first.role === 'user' && first.text.length).toBeLessThan(LONG_PROMPT.length);
      const events = store.readSession(session.sessionId!);
      const compacted = events.filter((e) => e.type === 'context.compacted');
      expect(compacted.map((e) => e.payload)).toEqual([
        {
          reason: 'manual',
          strategy: 'mechanical',
          beforeTokens: fold.beforeTokens,
          afterTokens: fold.afterTokens,
          removedMessages: 0,
          keepRecentUnits: 2,
          removedUnits: 0,
        },
      ]);
      // The sequence goes on after the stored event: the next turn and the end follow it.
      await session.turn('and now?', {});
      await session.close();
      const after = store.readSession(session.sessionId!);
      const seqs = after.map((e) => e.seq);
      for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThan(seqs[i - 1]!);
      expect(after.findIndex((e) => e.type === 'context.compacted')).toBeLessThan(
        after.findLastIndex((e) => e.type === 'user.message.received'),
      );
      const last = requests().at(-1)!;
      expect(last).toContain('chars folded by compaction');
      expect(last).not.toContain(LONG_PROMPT);
    });
  });

  it('is where a reopened session starts from: the first request after --continue carries the compacted conversation', async () => {
    await withSession(async ({ session, store, requests, open }) => {
      await session.turn(LONG_PROMPT, {});
      await session.turn('what is in the readme', {});
      await session.compact();
      const compacted = session.transcript();
      await session.close();
      const reopened = open(session.sessionId!);
      expect(reopened.transcript()).toEqual(compacted);
      await reopened.turn('and now?', {});
      await reopened.close();
      const sent = JSON.parse(requests().at(-1)!) as { messages: { role: string; content: unknown }[] };
      const text = JSON.stringify(sent.messages);
      expect(text).toContain('chars folded by compaction');
      expect(text).not.toContain(LONG_PROMPT);
      // The folded conversation, then the new prompt: nothing of the whole one came back.
      expect(sent.messages.filter((m) => m.role !== 'system')).toHaveLength(compacted.length + 1);
      expect(store.readSession(session.sessionId!).filter((e) => e.type === 'context.compacted')).toHaveLength(1);
    });
  });

  it('says nothing was folded before any prompt and stores nothing', async () => {
    await withSession(async ({ session }) => {
      const fold = await session.compact();
      expect(fold.changed).toBe(false);
      expect(session.sessionId).toBeUndefined();
    });
  });
});

describe('a reopened session', () => {
  it('keeps the provider, model and base URL it ran with unless a flag, MINICODE_PROVIDER or the base URL variable says otherwise', async () => {
    await withSession(async ({ session, store }) => {
      await session.turn('hi there', {});
      await session.close();
      const id = session.sessionId!;
      const started = store.readSession(id)[0]!;
      const baseUrl = started.type === 'session.started' ? started.payload.baseUrl : undefined;
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
      expect(resumeFlags({}, store, id, {})).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5', baseUrl });
      expect(resumeFlags({ baseUrl: 'http://127.0.0.1:1/v1' }, store, id, {})).toEqual({
        baseUrl: 'http://127.0.0.1:1/v1',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
      });
      expect(resumeFlags({ model: 'claude-opus-4-1' }, store, id, {})).toEqual({
        provider: 'anthropic',
        model: 'claude-opus-4-1',
        baseUrl,
      });
      // The environment's base URL for the provider wins, as it does for a new session.
      expect(resumeFlags({}, store, id, { ANTHROPIC_BASE_URL: 'http://127.0.0.1:2' })).toEqual({
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
      });
      expect(resumeFlags({ provider: 'replay' }, store, id, {})).toEqual({ provider: 'replay' });
      expect(resumeFlags({}, store, id, { MINICODE_PROVIDER: 'gemini' })).toEqual({});
      expect(resumeFlags({}, store, id, { MINICODE_PROVIDER: 'anthropic' })).toEqual({
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        baseUrl,
      });
    });
  });
});

describe('did you mean', () => {
  it('finds the closest known name within a few edits, a swap counted once, and nothing for a far one', () => {
    expect(editDistance('stauts', 'status')).toBe(1);
    expect(closestName('stauts', ['status', 'sessions', 'compact'])).toBe('status');
    expect(closestName('sesions', ['exec', 'sessions', 'replay'])).toBe('sessions');
    expect(closestName('comp', ['compact', 'clear'])).toBe('compact');
    expect(closestName('frobnicate', ['status', 'compact'])).toBeUndefined();
    expect(closestName('', ['status'])).toBeUndefined();
  });
});
