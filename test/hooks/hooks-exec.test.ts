/**
 * The user's hooks around a real `minicode exec` run: real hook scripts (bash and node) started
 * as subprocesses, a loopback provider that keeps every request body, and the `--json` events.
 * Each hook event runs with Claude Code's contract (JSON on stdin, exit 2 blocks, stdout as
 * context where the contract says so), its effect is visible in what the provider receives,
 * and every run is a `hook.*` event; a hook that hangs is killed at its timeout, one that prints
 * garbage or terminal escapes changes nothing it should not.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReplayServer, type Exchange, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { cleanEnv, contentTypeOf, execJson, ofType, scratchProject, tempDir, turnBody } from '../exec/helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const turn = (t: { text?: string; calls?: { id: string; name: string; args: unknown }[] }, n: number): Exchange =>
  streamOk(turnBody('openai-chat', t, n), contentTypeOf('openai-chat'));

/** A loopback provider answering `turns` in order, and the environment pointing exec at it. */
async function serve(turns: Exchange[]): Promise<{ server: ReplayServer; env: NodeJS.ProcessEnv }> {
  const server = await startReplayServer(turns);
  servers.push(server);
  return {
    server,
    env: { OPENAI_BASE_URL: `${server.origin}/v1`, OPENAI_API_KEY: 'sk-proj-hooksFakeKey0123456789abcdefghij' },
  };
}

/** A hook script in `dir`, executable. */
function script(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text, { mode: 0o755 });
  return file;
}

/** A home whose config.json holds `hooks`. */
function homeWithHooks(hooks: Record<string, unknown>): string {
  const home = tempDir('minicode-home-');
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ hooks }));
  return home;
}

const on = (command: string, extra: Record<string, unknown> = {}) => [
  { hooks: [{ type: 'command', command, ...extra }] },
];
const ESC = /\u001b|\u009b/;

describe('hooks around minicode exec', () => {
  it('a PreToolUse hook that exits 2 denies the call, and the model reads its stderr as the reason', async () => {
    const project = scratchProject();
    fs.mkdirSync(path.join(project, 'build'));
    const dir = tempDir('minicode-hooks-');
    const guard = script(
      dir,
      'block-rm.sh',
      '#!/bin/bash\ninput=$(cat)\nif [[ "$input" == *"rm -rf"* ]]; then echo "rm -rf is not allowed here; delete files one by one" >&2; exit 2; fi\nexit 0\n',
    );
    const { server, env } = await serve([
      turn({ calls: [{ id: 'call_rm', name: 'bash', args: { command: 'rm -rf build' } }] }, 1),
      turn({ text: 'I will not delete it.' }, 2),
    ]);
    const home = homeWithHooks({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: guard }] }] });
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], { cwd: project, home, env });
    expect(run.code, run.stderr).toBe(0);
    expect(fs.existsSync(path.join(project, 'build'))).toBe(true);
    const hook = ofType(run.records, 'hook.completed');
    expect(hook).toHaveLength(1);
    expect(hook[0]!.payload).toMatchObject({
      hookEvent: 'PreToolUse',
      toolName: 'bash',
      toolCallId: 'call_rm',
      outcome: 'blocked',
      exitCode: 2,
      decision: 'block',
    });
    expect(hook[0]!.payload.durationMs).toBeGreaterThanOrEqual(0);
    expect(ofType(run.records, 'tool.denied')[0]!.payload.reason).toContain('rm -rf is not allowed here');
    expect(server.requests[1]!.body).toContain('rm -rf is not allowed here; delete files one by one');
  });

  it('SessionStart and UserPromptSubmit get the event as JSON on stdin and their stdout reaches the first request', async () => {
    const project = scratchProject();
    const dir = tempDir('minicode-hooks-');
    const start = script(
      dir,
      'start.sh',
      `#!/bin/bash\ncat > ${dir}/start.json\necho "Project rule: answer in French."\n`,
    );
    const prompt = script(
      dir,
      'prompt.mjs',
      `#!/usr/bin/env node\nimport fs from 'node:fs';\nconst input = fs.readFileSync(0, 'utf8');\nfs.writeFileSync(${JSON.stringify(path.join(dir, 'prompt.json'))}, input);\nconst event = JSON.parse(input);\nprocess.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'Ticket context: ' + event.prompt.length + ' characters asked.' } }));\n`,
    );
    const { server, env } = await serve([turn({ text: 'Bonjour.' }, 1)]);
    const home = homeWithHooks({ SessionStart: on(start), UserPromptSubmit: on(prompt) });
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], {
      cwd: project,
      home,
      env,
      prompt: 'Say hello',
    });
    expect(run.code, run.stderr).toBe(0);
    const first = server.requests[0]!.body;
    expect(first).toContain('Project rule: answer in French.');
    expect(first).toContain('Ticket context: 9 characters asked.');
    const startInput = JSON.parse(fs.readFileSync(path.join(dir, 'start.json'), 'utf8'));
    expect(startInput).toMatchObject({
      hook_event_name: 'SessionStart',
      source: 'startup',
      cwd: project,
      session_id: run.summary.sessionId,
    });
    const promptInput = JSON.parse(fs.readFileSync(path.join(dir, 'prompt.json'), 'utf8'));
    expect(promptInput).toMatchObject({ hook_event_name: 'UserPromptSubmit', prompt: 'Say hello', cwd: project });
    expect(ofType(run.records, 'hook.completed').map((e) => e.payload.hookEvent)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
    ]);
    // What the person asked is kept as they said it; only the model's copy carries the context.
    expect(ofType(run.records, 'user.message.received')[0]!.payload.text).toBe('Say hello');
  });

  it('a UserPromptSubmit hook that exits 2 stops the run before any request, as hook_stopped', async () => {
    const project = scratchProject();
    const { server, env } = await serve([turn({ text: 'never sent' }, 1)]);
    const home = homeWithHooks({ UserPromptSubmit: on('echo "prompts about passwords are not allowed" >&2; exit 2') });
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], { cwd: project, home, env });
    expect(run.code).toBe(1);
    expect(server.requests).toHaveLength(0);
    expect(run.summary.ok).toBe(false);
    expect(ofType(run.records, 'task.cancelled')[0]!.payload).toMatchObject({ reason: 'hook_stopped' });
    expect(ofType(run.records, 'task.cancelled')[0]!.payload.message).toContain(
      'prompts about passwords are not allowed',
    );
  });

  it('PostToolUse gets the tool response and its additionalContext goes back with the tool result; SessionEnd runs at the end', async () => {
    const project = scratchProject();
    const dir = tempDir('minicode-hooks-');
    const post = script(
      dir,
      'post.mjs',
      `#!/usr/bin/env node\nimport fs from 'node:fs';\nconst event = JSON.parse(fs.readFileSync(0, 'utf8'));\nfs.appendFileSync(${JSON.stringify(path.join(dir, 'audit.log'))}, JSON.stringify({ tool: event.tool_name, input: event.tool_input, response: event.tool_response }) + '\\n');\nconsole.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'formatter ran on ' + event.tool_input.path } }));\n`,
    );
    const end = script(dir, 'end.sh', `#!/bin/bash\ncat > ${dir}/end.json\n`);
    const { server, env } = await serve([
      turn({ calls: [{ id: 'call_w', name: 'write_file', args: { path: 'notes.txt', content: 'hello\n' } }] }, 1),
      turn({ text: 'Written.' }, 2),
    ]);
    const home = homeWithHooks({
      PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: post }] }],
      SessionEnd: on(end),
    });
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini', '--approval', 'auto'], {
      cwd: project,
      home,
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    const audit = fs
      .readFileSync(path.join(dir, 'audit.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(audit).toEqual([
      {
        tool: 'write_file',
        input: { path: 'notes.txt', content: 'hello\n' },
        response: expect.objectContaining({ status: 'completed' }),
      },
    ]);
    expect(server.requests[1]!.body).toContain('formatter ran on notes.txt');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'end.json'), 'utf8'))).toMatchObject({
      hook_event_name: 'SessionEnd',
      reason: 'other',
    });
  });

  it('a Stop hook that exits 2 makes the agent go on with its stderr, once, guarded by stop_hook_active', async () => {
    const project = scratchProject();
    const dir = tempDir('minicode-hooks-');
    const stop = script(
      dir,
      'stop.mjs',
      `#!/usr/bin/env node\nimport fs from 'node:fs';\nconst event = JSON.parse(fs.readFileSync(0, 'utf8'));\nfs.appendFileSync(${JSON.stringify(path.join(dir, 'stop.log'))}, String(event.stop_hook_active) + '\\n');\nif (!event.stop_hook_active) { process.stderr.write('Run the tests before you finish.'); process.exit(2); }\n`,
    );
    const { server, env } = await serve([turn({ text: 'Done.' }, 1), turn({ text: 'Tests pass; done.' }, 2)]);
    const home = homeWithHooks({ Stop: on(stop) });
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], { cwd: project, home, env });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body).toContain('Run the tests before you finish.');
    expect(fs.readFileSync(path.join(dir, 'stop.log'), 'utf8')).toBe('false\ntrue\n');
  });

  it('a hook past its timeout is killed with its process group; the run goes on and the event says timeout', async () => {
    const project = scratchProject();
    const dir = tempDir('minicode-hooks-');
    const pidFile = path.join(dir, 'child.pid');
    const { env } = await serve([turn({ text: 'Fine.' }, 1)]);
    // Five seconds: long enough for bash to start on a loaded machine and write the sleeper's pid.
    const home = homeWithHooks({ UserPromptSubmit: on(`sleep 300 & echo $! > ${pidFile}; wait`, { timeout: 5 }) });
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], { cwd: project, home, env });
    expect(run.code, run.stderr).toBe(0);
    const failed = ofType(run.records, 'hook.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.payload).toMatchObject({ hookEvent: 'UserPromptSubmit', outcome: 'timeout' });
    expect(failed[0]!.payload.durationMs).toBeGreaterThanOrEqual(5000);
    expect(failed[0]!.payload.exitCode).toBeUndefined();
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    const gone = (): boolean => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        // ESRCH: the sleeper was killed with the hook's group.
        return true;
      }
    };
    await waitFor(gone, { what: `the hook's background sleeper (pid ${pid}) to be gone` });
  });

  it('garbage on stdout and a non-blocking exit change nothing: the tool runs, the failure is a hook.failed event', async () => {
    const project = scratchProject();
    const { server, env } = await serve([
      turn({ calls: [{ id: 'call_ls', name: 'bash', args: { command: 'echo listed' } }] }, 1),
      turn({ text: 'Listed.' }, 2),
    ]);
    const home = homeWithHooks({
      PreToolUse: [
        {
          matcher: 'bash',
          hooks: [{ type: 'command', command: `printf '{"decision": "blo\\x00\\xff\\xfe garbage'; exit 0` }],
        },
        { matcher: '.*', hooks: [{ type: 'command', command: 'echo "linter crashed" >&2; exit 1' }] },
      ],
    });
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], { cwd: project, home, env });
    expect(run.code, run.stderr).toBe(0);
    expect(ofType(run.records, 'tool.completed')[0]!.payload.output).toContain('listed');
    expect(ofType(run.records, 'hook.completed')[0]!.payload.outcome).toBe('success');
    expect(ofType(run.records, 'hook.failed')[0]!.payload).toMatchObject({
      outcome: 'error',
      exitCode: 1,
      stderr: 'linter crashed\n',
    });
    expect(server.requests[1]!.body).not.toContain('garbage');
  });

  it('terminal escapes a hook prints reach neither the terminal nor the provider, and its environment holds no credentials', async () => {
    const project = scratchProject();
    const dir = tempDir('minicode-hooks-');
    const loud = script(
      dir,
      'loud.sh',
      `#!/bin/bash\nenv > ${dir}/env.txt\nprintf 'context \\033]0;pwned\\007\\033[31mred\\033[0m done\\n'\nprintf '\\033[2J\\033]52;c;cGF5bG9hZA==\\007 wiped' >&2\nexit 1\n`,
    );
    const ctx = script(dir, 'ctx.sh', `#!/bin/bash\nprintf 'note \\033]0;pwned\\007\\033[31mred\\033[0m end\\n'\n`);
    const { server, env } = await serve([turn({ text: 'Fine.' }, 1), turn({ text: 'Fine again.' }, 1)]);
    const home = homeWithHooks({
      UserPromptSubmit: [
        {
          hooks: [
            { type: 'command', command: loud },
            { type: 'command', command: ctx },
          ],
        },
      ],
    });
    const secretEnv = { ...env, DEPLOY_TOKEN: 'ghp_Zq8Lm3Nv7Bx2Kc5Hj9Tr4Wd6Fy1Gs0Ae8Pu3' };
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], {
      cwd: project,
      home,
      env: secretEnv,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(ESC);
    expect(run.stderr).not.toMatch(ESC);
    expect(server.requests[0]!.body).toContain('note ');
    expect(server.requests[0]!.body).not.toMatch(/\\u001b|\u001b/);
    expect(ofType(run.records, 'hook.failed')[0]!.payload.stderr).toContain('wiped');
    const hookEnv = fs.readFileSync(path.join(dir, 'env.txt'), 'utf8');
    expect(hookEnv).not.toContain('ghp_');
    expect(hookEnv).not.toContain('OPENAI_API_KEY');
    expect(hookEnv).toContain(`MINICODE_PROJECT_DIR=${project}`);
    // The human renderer (linear, no TTY) prints the hook's failure without its escapes.
    const linear = await runCli(
      ['exec', 'Say hi', '--cwd', project, '--provider', 'openai-chat', '--model', 'gpt-4.1-mini', '--verbose'],
      { env: cleanEnv(home, secretEnv) },
    );
    expect(linear.code, linear.stderr).toBe(0);
    expect(linear.stdout + linear.stderr).toContain('wiped');
    expect(linear.stdout + linear.stderr).not.toMatch(ESC);
  });

  it('PreCompact runs before a recovery compaction, and SessionStart with source compact after it, its context in the retried request', async () => {
    const project = scratchProject();
    const dir = tempDir('minicode-hooks-');
    const tooLong: Exchange = {
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(
        JSON.stringify({
          error: {
            message:
              "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
            type: 'invalid_request_error',
            code: 'context_length_exceeded',
          },
        }),
      ),
      scripted: true,
    };
    const { server, env } = await serve([tooLong, turn({ text: 'Short now.' }, 1)]);
    const home = homeWithHooks({
      PreCompact: [{ matcher: 'auto', hooks: [{ type: 'command', command: `cat > ${dir}/compact.json` }] }],
      SessionStart: [
        {
          matcher: 'compact',
          hooks: [{ type: 'command', command: `cat > ${dir}/start.json; echo after-compaction-context` }],
        },
      ],
    });
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], { cwd: project, home, env });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'compact.json'), 'utf8'))).toMatchObject({
      hook_event_name: 'PreCompact',
      trigger: 'auto',
    });
    expect(ofType(run.records, 'context.compacted')).toHaveLength(1);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'start.json'), 'utf8'))).toMatchObject({
      hook_event_name: 'SessionStart',
      source: 'compact',
    });
    // The matcher kept it from the session's start: only the request after the compaction has its context.
    expect(server.requests[0]!.body).not.toContain('after-compaction-context');
    expect(server.requests[1]!.body).toContain('after-compaction-context');
  });

  it("a project's .minicode/settings.json hooks run only with --allow-local-config", async () => {
    const project = scratchProject();
    const marker = path.join(project, 'ran.txt');
    fs.mkdirSync(path.join(project, '.minicode'), { recursive: true });
    fs.writeFileSync(
      path.join(project, '.minicode', 'settings.json'),
      JSON.stringify({ permissions: { allow: [] }, hooks: { SessionStart: on(`touch ${marker}`) } }),
    );
    const first = await serve([turn({ text: 'One.' }, 1)]);
    const untrusted = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], {
      cwd: project,
      env: first.env,
    });
    expect(untrusted.code, untrusted.stderr).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
    const second = await serve([turn({ text: 'Two.' }, 1)]);
    const trusted = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini', '--allow-local-config'], {
      cwd: project,
      env: second.env,
    });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(fs.existsSync(marker)).toBe(true);
  });
});
