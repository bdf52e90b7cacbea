/**
 * Custom slash commands: Markdown prompts in `$MINICODE_HOME/commands/` and (trusted) the
 * project's `.minicode/commands/`, called as `/name args` from `exec`, a batch line, the chat
 * (under tmux, with Tab completion and /help) and advertised to ACP clients. What the provider
 * receives (a loopback server keeping every request body) shows the expansion.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAgentPort } from '../../lib/agent/acp-port.js';
import {
  expandCommand,
  loadCustomCommands,
  policyForCommand,
  splitArguments,
  type CustomCommand,
} from '../../lib/extensions/commands.js';
import { startReplayServer, type Exchange, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { runCli } from '../helpers/cli.js';
import { HAVE_TMUX, startTerm, type TmuxTerm } from '../chat/tmux-driver.js';
import { cleanEnv, contentTypeOf, execJson, scratchProject, tempDir, turnBody } from '../exec/helpers.js';

const servers: ReplayServer[] = [];
const terms: TmuxTerm[] = [];
afterAll(async () => {
  for (const t of terms) t.kill();
  await Promise.all(servers.map((s) => s.close()));
});

const turn = (text: string, n = 1): Exchange =>
  streamOk(turnBody('openai-chat', { text }, n), contentTypeOf('openai-chat'));

async function serve(turns: Exchange[]): Promise<{ server: ReplayServer; env: Record<string, string> }> {
  const server = await startReplayServer(turns);
  servers.push(server);
  return {
    server,
    env: { OPENAI_BASE_URL: `${server.origin}/v1`, OPENAI_API_KEY: 'sk-proj-commandsFakeKey0123456789abcdef' },
  };
}

const FIX_ISSUE = `---
description: Fix a GitHub issue
argument-hint: <number> <priority>
model: gpt-4.1-nano
allowed-tools: Bash(git add:*), Read
---
Fix issue #$1 (priority $2). Everything typed: $ARGUMENTS
`;

/** A home with the user command /fix-issue. */
function homeWithCommand(): string {
  const home = tempDir('minicode-home-');
  fs.mkdirSync(path.join(home, 'commands'), { recursive: true });
  fs.writeFileSync(path.join(home, 'commands', 'fix-issue.md'), FIX_ISSUE);
  return home;
}

const command = (fields: Partial<CustomCommand>): CustomCommand => ({
  name: 'x',
  description: 'x',
  argumentHint: undefined,
  allowedTools: [],
  model: undefined,
  body: '',
  file: 'x.md',
  scope: 'user',
  ...fields,
});

describe('a custom command', () => {
  it('expands $ARGUMENTS and $1..., keeps quoted arguments together, and appends the arguments to a body that uses neither', () => {
    expect(splitArguments(`12 "very high" 'a b' c`)).toEqual(['12', 'very high', 'a b', 'c']);
    expect(expandCommand(command({ body: 'Fix #$1 ($2); all: $ARGUMENTS; none: [$3]' }), '12 "very high"')).toBe(
      'Fix #12 (very high); all: 12 "very high"; none: []',
    );
    expect(expandCommand(command({ body: 'Review the diff.' }), 'focus on tests')).toBe(
      'Review the diff.\n\nfocus on tests',
    );
  });

  it('lets its allowed-tools run without asking in auto mode only, and a bash prefix never narrows an allowed bash', () => {
    const c = command({ allowedTools: ['bash(git add:*)', 'read_file', 'git_commit'] });
    expect(policyForCommand({ mode: 'auto', allowTools: ['read_file'] }, c)).toEqual({
      mode: 'auto',
      allowTools: ['read_file', 'git_commit'],
      allowCommands: ['git add'],
    });
    expect(policyForCommand({ mode: 'auto' }, c).allowCommands).toBeUndefined();
    expect(policyForCommand({ mode: 'read-only' }, c)).toEqual({ mode: 'read-only' });
  });

  it('is read from the user folder always and the project folder only with --allow-local-config, the project one winning', () => {
    const home = homeWithCommand();
    const project = tempDir('minicode-project-');
    fs.mkdirSync(path.join(project, '.minicode', 'commands', 'git'), { recursive: true });
    fs.writeFileSync(path.join(project, '.minicode', 'commands', 'fix-issue.md'), 'Project fix of $1');
    fs.writeFileSync(
      path.join(project, '.minicode', 'commands', 'git', 'commit.md'),
      '---\ndescription: Commit the work\n---\nCommit.',
    );
    const untrusted = loadCustomCommands({ env: { MINICODE_HOME: home }, cwd: project, allowLocalConfig: false });
    expect(untrusted.commands.map((c) => [c.name, c.scope])).toEqual([['fix-issue', 'user']]);
    expect(untrusted.commands[0]).toMatchObject({
      description: 'Fix a GitHub issue',
      argumentHint: '<number> <priority>',
      model: 'gpt-4.1-nano',
      allowedTools: ['bash(git add:*)', 'read_file'],
    });
    const trusted = loadCustomCommands({ env: { MINICODE_HOME: home }, cwd: project, allowLocalConfig: true });
    expect(trusted.commands.map((c) => [c.name, c.scope])).toEqual([
      ['fix-issue', 'project'],
      ['git:commit', 'project'],
    ]);
  });

  it('runs headless: exec "/fix-issue 123 high" sends the expanded prompt with the command\'s model', async () => {
    const { server, env } = await serve([turn('Fixed.')]);
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], {
      cwd: scratchProject(),
      home: homeWithCommand(),
      env,
      prompt: '/fix-issue 123 high',
    });
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.parse(server.requests[0]!.body);
    expect(body.model).toBe('gpt-4.1-nano');
    expect(JSON.stringify(body.messages)).toContain('Fix issue #123 (priority high). Everything typed: 123 high');
  });

  it('runs from a batch line', async () => {
    const { server, env } = await serve([turn('Fixed.')]);
    const dir = tempDir('minicode-batch-');
    const input = path.join(dir, 'lines.jsonl');
    fs.writeFileSync(input, `${JSON.stringify({ id: 'one', prompt: '/fix-issue 7 low', cwd: scratchProject() })}\n`);
    const home = homeWithCommand();
    const r = await runCli(
      ['batch', input, '--out', path.join(dir, 'out'), '--provider', 'openai-chat', '--model', 'gpt-4.1-mini'],
      { env: cleanEnv(home, env) },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0]!.body).toContain('Fix issue #7 (priority low). Everything typed: 7 low');
  });

  it('is advertised to ACP clients by the real port', () => {
    const port = createAgentPort({ env: { MINICODE_HOME: homeWithCommand() } });
    expect(port.availableCommands?.(scratchProject())).toEqual([
      { name: 'fix-issue', description: 'Fix a GitHub issue', hint: '<number> <priority>' },
    ]);
  });

  it.skipIf(!HAVE_TMUX)(
    'in chat: /help lists it, Tab completes its name, and it runs as a turn with its arguments',
    async () => {
      const { server, env } = await serve([turn('On it.')]);
      const home = homeWithCommand();
      const project = scratchProject();
      const t = startTerm(['chat', '--provider', 'openai-chat', '--model', 'gpt-4.1-mini', '--cwd', project], {
        cols: 100,
        rows: 40,
        cwd: project,
        env: { MINICODE_HOME: home, TERM: 'xterm-256color', ...env },
      });
      terms.push(t);
      await t.waitFor('New session');
      t.type('/help');
      t.send('Enter');
      await t.waitFor('/fix-issue <number> <priority> - Fix a GitHub issue (user)');
      t.type('/fix-i');
      t.send('Tab');
      await t.waitFor(/› \/fix-issue\s*$/m);
      t.type('42 urgent');
      t.send('Enter');
      await t.waitFor('On it.');
      expect(server.requests[0]!.body).toContain('Fix issue #42 (priority urgent). Everything typed: 42 urgent');
      expect(JSON.parse(server.requests[0]!.body).model).toBe('gpt-4.1-nano');
    },
  );
});
