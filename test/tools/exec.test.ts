import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashTool } from '../../lib/tools/bash.js';
import { gitCommitTool } from '../../lib/tools/git-commit.js';
import { askUserTool } from '../../lib/tools/ask-user.js';
import { createSubmitResultTool } from '../../lib/tools/submit-result.js';
import { createToolRegistry } from '../../lib/tools/index.js';
import { context, scratch } from './helpers.js';

describe('bash', () => {
  it('runs a real subprocess in the workspace and reports exit 0', async () => {
    const dir = scratch({ 'hello.txt': 'hi' });
    const outcome = await bashTool.run({ command: 'pwd; cat hello.txt' }, context(dir).ctx);
    expect(outcome).toMatchObject({ status: 'completed', receipt: { exitCode: 0 } });
    if (outcome.status === 'completed') expect(outcome.output).toBe(`${fs.realpathSync(dir)}\nhi`);
  });

  it('reports a non-zero exit as a failure that still carries the output', async () => {
    const outcome = await bashTool.run({ command: 'echo broken >&2; exit 3' }, context(scratch()).ctx);
    expect(outcome).toMatchObject({
      status: 'failed',
      cause: 'TOOL_ERROR',
      output: 'broken\n',
      receipt: { exitCode: 3 },
    });
  });

  it('caps output at 20,000 chars as 70% head and 30% tail with a marker', async () => {
    const outcome = await bashTool.run(
      { command: "node -e \"process.stdout.write('H'.repeat(30000) + 'T'.repeat(30000))\"" },
      context(scratch()).ctx,
    );
    if (outcome.status !== 'completed') throw new Error('expected completed');
    expect(outcome.receipt?.truncated).toBe(true);
    const [head, tail] = outcome.output.split(/\n\[\.\.\. \d+ characters truncated by minicode \.\.\.\]\n/);
    expect(head).toBe('H'.repeat(14000));
    expect(tail).toBe('T'.repeat(6000));
  });

  it('kills the whole process group on timeout', async () => {
    const dir = scratch();
    const outcome = await bashTool.run(
      { command: 'sleep 30 & echo $! > child.pid; wait', timeout_ms: 300 },
      context(dir, { limits: { killGraceMs: 200 } }).ctx,
    );
    expect(outcome).toMatchObject({ status: 'failed', cause: 'TOOL_ERROR' });
    if (outcome.status === 'failed') expect(outcome.message).toContain('timed out');
    const pid = Number(fs.readFileSync(path.join(dir, 'child.pid'), 'utf8'));
    // Killed means gone or a zombie: where pid 1 does not reap orphans (containers), a killed
    // grandchild lingers as `Z` until someone does. Poll briefly: SIGKILL delivery is async.
    const deadline = Date.now() + 3_000;
    let state = processState(pid);
    while (state !== 'gone' && state !== 'Z' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      state = processState(pid);
    }
    expect(['gone', 'Z']).toContain(state);
  });

  it('stops when the run is aborted', async () => {
    const controller = new AbortController();
    const { ctx } = context(scratch(), { signal: controller.signal });
    const running = bashTool.run({ command: 'sleep 30' }, ctx);
    setTimeout(() => controller.abort(), 50);
    expect(await running).toMatchObject({ status: 'failed', cause: 'USER_ERROR' });
  });

  it('removes credential variables from the child environment', async () => {
    const env = {
      ...process.env,
      GITHUB_TOKEN: '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',
      OPENAI_API_KEY: 'sk-proj-AbCdEf0123456789GhIjKl0123456789',
      MY_DB_PASSWORD: 'db-pass-value-4242',
      SAFE_VALUE: 'visible',
    };
    const outcome = await bashTool.run({ command: 'env' }, context(scratch(), { env }).ctx);
    if (outcome.status !== 'completed') throw new Error('expected completed');
    expect(outcome.output).toContain('SAFE_VALUE=visible');
    expect(outcome.output).not.toContain('GITHUB_TOKEN');
    expect(outcome.output).not.toContain('OPENAI_API_KEY');
    expect(outcome.output).not.toContain('MY_DB_PASSWORD');
  });
});

describe('submit_result', () => {
  it('keeps the JSON verbatim, extracts findings, and refuses a second call', async () => {
    const registry = createToolRegistry();
    const { ctx } = context(scratch());
    const text =
      '{"verdict":"ok","score":0.5,"findings":[{"category":"lint","severity":"low","summary":"unused var","evidence":{"line":3}}],"extra":null}';
    const first = await registry.invoke('submit_result', text, ctx);
    expect(first).toMatchObject({
      status: 'completed',
      result: JSON.parse(text),
      findings: [{ category: 'lint', severity: 'low', summary: 'unused var', evidence: { line: 3 } }],
    });
    const second = await registry.invoke('submit_result', '{"verdict":"again"}', ctx);
    expect(second).toMatchObject({ status: 'failed', cause: 'TOOL_ERROR' });
    if (second.status === 'failed') expect(second.message).toContain('already called');
  });

  it('is once per run: a new registry starts fresh', async () => {
    const { ctx } = context(scratch());
    expect((await createSubmitResultTool().run({}, ctx)).status).toBe('completed');
    expect((await createToolRegistry().invoke('submit_result', '{}', ctx)).status).toBe('completed');
  });
});

describe('ask_user', () => {
  it('is gated and denied at once without a TTY', async () => {
    expect(askUserTool.gated).toBe(true);
    const outcome = await askUserTool.run({ question: 'which branch?' }, context(scratch(), { tty: false }).ctx);
    expect(outcome.status).toBe('denied');
    if (outcome.status === 'denied') expect(outcome.reason).toContain('no TTY');
  });

  it('returns the answer from the injected prompt on a TTY', async () => {
    const outcome = await askUserTool.run(
      { question: 'which branch?' },
      context(scratch(), { tty: true, promptAskText: async () => 'main' }).ctx,
    );
    expect(outcome).toMatchObject({ status: 'completed', output: 'main' });
  });
});

describe('git_commit', () => {
  it('is gated and commits staged changes in a real repository', async () => {
    expect(gitCommitTool.gated).toBe(true);
    const dir = scratch({ 'a.txt': 'one' });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
    git('init', '-q');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '.');
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    };
    const outcome = await gitCommitTool.run({ message: 'first', paths: ['a.txt'] }, context(dir, { env }).ctx);
    expect(outcome.status).toBe('completed');
    expect(git('log', '--format=%s').toString().trim()).toBe('first');
  });
});

/** The state letter of a process from /proc (`R`, `S`, `Z`, ...), or `gone`. */
function processState(pid: number): string {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? 'gone';
  } catch {
    return 'gone';
  }
}
