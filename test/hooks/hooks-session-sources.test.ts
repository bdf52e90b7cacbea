/**
 * SessionStart's `source` and SessionEnd's `reason` across an interactive session's life: a new
 * session starts with `startup`, the prompt after `/compact` with `compact`, `/clear` ends the
 * session with reason `clear` and its successor starts with `clear`, a reopened session
 * (`--continue`, `--resume`) with `resume`; matchers pick sources as in Claude Code's contract.
 * The chat session under the terminal app, real hook subprocesses, a loopback provider that
 * keeps every request body.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { providerSettings } from '../../lib/agent/provider-settings.js';
import { runLimits } from '../../lib/agent/run-limits.js';
import { toolEnvironment } from '../../lib/agent/tool-environment.js';
import { createChatSession } from '../../lib/chat/session.js';
import { hookSettingsOf } from '../../lib/hooks/settings.js';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { openStore } from '../../lib/store/index.js';
import { contentTypeOf, scratchProject, tempDir, turnBody } from '../exec/helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const LONG = `${'remember this long request, word for word: '.repeat(12)}done`;

describe('SessionStart sources and SessionEnd reasons in a chat', () => {
  it('runs startup, compact, clear and resume at the prompt after each, and SessionEnd with reason clear on /clear', async () => {
    const project = scratchProject();
    const dir = tempDir('minicode-sources-');
    const log = path.join(dir, 'hooks.jsonl');
    const record = `node -e "const fs=require('fs');const i=JSON.parse(fs.readFileSync(0,'utf8'));fs.appendFileSync('${log}',JSON.stringify(i)+'\\n');if(i.source)process.stdout.write('context of '+i.source)"`;
    const hooks = hookSettingsOf([
      {
        file: 'test',
        section: {
          SessionStart: [{ hooks: [{ type: 'command', command: record }] }],
          SessionEnd: [{ hooks: [{ type: 'command', command: record }] }],
        },
      },
      // Only a resumed session gets this one: the matcher is a source.
      {
        file: 'test-resume-only',
        section: {
          SessionStart: [{ matcher: 'resume', hooks: [{ type: 'command', command: `echo resumed-only-context` }] }],
        },
      },
    ]);
    const server = await startReplayServer(
      Array.from({ length: 6 }, (_, i) =>
        streamOk(turnBody('openai-chat', { text: `answer ${i + 1}` }, i + 1), contentTypeOf('openai-chat')),
      ),
    );
    servers.push(server);
    const store = openStore({ dir: path.join(dir, 'store') });
    const open = (options: { resume?: string; cleared?: boolean } = {}) =>
      createChatSession({
        provider: providerSettings({
          format: 'openai-chat',
          model: 'gpt-4.1-mini',
          baseUrl: `${server.origin}/v1`,
          apiKey: 'sk-proj-sourcesFakeKey0123456789abcdef',
        }),
        limits: runLimits(),
        environment: toolEnvironment(project, { policy: { mode: 'ask' }, env: {}, hooks }),
        store,
        ...options,
      });
    /** The prompt of request `n` as the model got it (the last user message). */
    const body = (n: number): string => {
      const messages = JSON.parse(server.requests[n]!.body.toString('utf8')).messages as {
        role: string;
        content: string;
      }[];
      return messages.filter((m) => m.role === 'user').at(-1)!.content;
    };
    const seen = (): Record<string, unknown>[] =>
      fs
        .readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l));
    try {
      const first = open();
      await first.turn(LONG, {});
      await first.turn('second', {});
      expect(await first.compact()).toMatchObject({ changed: true });
      await first.turn('after compact', {});
      await first.close('clear');
      const cleared = open({ cleared: true });
      await cleared.turn('fresh start', {});
      await cleared.close();
      const reopened = open({ resume: first.sessionId! });
      await reopened.turn('back again', {});
      await reopened.close();

      const events = seen().map((e) => [e.hook_event_name, e.source ?? e.reason, e.session_id]);
      expect(events).toEqual([
        ['SessionStart', 'startup', first.sessionId],
        ['SessionStart', 'compact', first.sessionId],
        ['SessionEnd', 'clear', first.sessionId],
        ['SessionStart', 'clear', cleared.sessionId],
        ['SessionEnd', 'exit', cleared.sessionId],
        ['SessionStart', 'resume', first.sessionId],
        ['SessionEnd', 'exit', first.sessionId],
      ]);
      // Each source's context goes with the prompt it ran before, and with no other.
      expect(body(0)).toContain('context of startup');
      expect(body(1)).not.toContain('context of');
      expect(body(2)).toContain('context of compact');
      expect(body(3)).toContain('context of clear');
      expect(body(4)).toContain('context of resume');
      expect(body(4)).toContain('resumed-only-context');
      for (const n of [0, 1, 2, 3]) expect(body(n)).not.toContain('resumed-only-context');
    } finally {
      await store.close();
    }
  });
});
