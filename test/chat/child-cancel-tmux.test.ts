/**
 * Esc in the interactive mode while a child session (the `task` tool) runs, through a real
 * terminal (tmux): the provider is a scripted OpenAI-compatible server on loopback whose answer
 * to the child never ends. Esc stops the turn and the child with it (its request abandoned), the
 * prompt comes back and the next turn runs; the stored child ends cancelled with cause
 * `parent-cancel`, as `minicode replay` rebuilds it in another process. Skipped where tmux is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startScriptedProvider, type ScriptedProvider, type SeenRequest } from '../helpers/scripted-provider.js';
import { waitFor } from '../helpers/wait.js';
import { HAVE_TMUX, startTerm, type TmuxTerm } from './tmux-driver.js';

if (!HAVE_TMUX) console.warn('skipping chat child-cancel tmux test: tmux is not installed (apt-get install -y tmux)');

const PARENT_PROMPT = 'Ask a helper to look around';
const CHILD_PROMPT = 'Look around the project';

/** The first user message of a request (what its session started from), or its last. */
function promptOf(request: SeenRequest, which: 'first' | 'last' = 'first'): string {
  const users = request.body.messages.filter((m) => m.role === 'user');
  const user = which === 'first' ? users[0] : users.at(-1);
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content);
}

describe.skipIf(!HAVE_TMUX)('Esc while a child session runs in minicode chat', () => {
  let provider: ScriptedProvider | undefined;
  const terms: TmuxTerm[] = [];
  afterAll(async () => {
    for (const t of terms) t.kill();
    await provider?.close();
  });

  it('stops the child with the turn, gives the prompt back, and the stored child ends cancelled by its parent', async () => {
    provider = await startScriptedProvider((request) => {
      if (promptOf(request) === CHILD_PROMPT) return 'hang';
      if (promptOf(request, 'last') === PARENT_PROMPT)
        return {
          text: '',
          toolCalls: [
            {
              id: 'call_task',
              name: 'task',
              argumentsText: JSON.stringify({
                description: 'look around',
                prompt: CHILD_PROMPT,
                subagent_type: 'explore',
              }),
            },
          ],
        };
      return { text: 'Still here after the stop.' };
    });
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-chat-child-cancel-')));
    const home = path.join(root, 'home');
    const project = path.join(root, 'project');
    fs.mkdirSync(home);
    fs.mkdirSync(project);
    const env = { MINICODE_HOME: home, TERM: 'xterm-256color', OPENAI_API_KEY: 'sk-test-chat-child-cancel-0123' };
    const t = startTerm(
      [
        'chat',
        '--provider',
        'openai-chat',
        '--model',
        'gpt-4.1',
        '--base-url',
        provider.settings.baseUrl,
        '--sandbox',
        'off',
        '--cwd',
        project,
      ],
      {
        cols: 100,
        rows: 40,
        cwd: project,
        env,
      },
    );
    terms.push(t);
    await t.waitFor('New session');
    t.type(PARENT_PROMPT);
    t.send('Enter');
    await waitFor(() => provider!.requests.some((r) => promptOf(r) === CHILD_PROMPT), { what: "the child's request" });
    t.send('Escape');
    await waitFor(() => provider!.abandoned >= 1, { what: "the child's request to be abandoned" });
    const stopped = await t.waitFor('stopped (Esc)');
    expect(stopped).toMatch(/task\(explore: look around\) cancelled/);
    // The prompt is back: the next turn runs.
    t.type('are you there?');
    t.send('Enter');
    await t.waitFor('Still here after the stop.');
    t.type('/exit');
    t.send('Enter');
    const end = await t.waitFor('EXIT=0', { join: true });
    const sessionId = /session (ses_[a-z0-9_]+) \(minicode replay/.exec(end)![1]!;

    const listed = await runCli(['sessions', '--json'], { env: { MINICODE_HOME: home } });
    const child = listed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((e) => e.parentSessionId === sessionId)!;
    expect(child).toMatchObject({ parentToolCallId: 'call_task', outcome: 'cancelled' });
    const replayed = await runCli(['replay', child.sessionId as string, '--json'], { env: { MINICODE_HOME: home } });
    const events = replayed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });
    expect(events.find((e) => e.type === 'task.cancelled')?.payload).toMatchObject({
      reason: 'aborted',
      cause: 'parent-cancel',
      message: 'stopped with Esc',
    });
    expect(events.find((e) => e.type === 'session.ended')?.payload).toMatchObject({ outcome: 'cancelled' });
  }, 90_000);
});
