/**
 * The scripted provider bench/exec-cost runs every agent against: the real `minicode exec --json`
 * does the whole job through it (one shell call, then the answer) in both wire formats it speaks,
 * Anthropic Messages (minicode, Claude Code) and OpenAI Responses (Codex), so that the bench's
 * job is known to work before any peer is measured on it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_PROMPT, startAgentProvider, type AgentProvider } from '../support/agent-provider.js';
import { execJson, ofType, scratchProject } from '../../test/exec/helpers.js';
import { ROOT } from '../../test/helpers/cli.js';

let provider: AgentProvider;
beforeAll(async () => {
  provider = await startAgentProvider();
});
afterAll(async () => {
  await provider?.close();
});

const FORMATS = [
  {
    provider: 'anthropic',
    route: 'POST /v1/messages',
    env: (origin: string) => ({ ANTHROPIC_BASE_URL: origin, ANTHROPIC_API_KEY: 'sk-ant-test-fake-key-0123456789' }),
  },
  {
    provider: 'openai-responses',
    route: 'POST /v1/responses',
    env: (origin: string) => ({ OPENAI_BASE_URL: `${origin}/v1`, OPENAI_API_KEY: 'sk-test-fake-key-0123456789' }),
  },
];

describe('the exec-cost bench provider', () => {
  for (const format of FORMATS) {
    it(`serves minicode the shell call and then the answer over ${format.provider}`, async () => {
      const before = provider.counts.get(format.route) ?? 0;
      const run = await execJson(['--provider', format.provider, '--no-checkpoint'], {
        cwd: scratchProject(),
        env: format.env(provider.origin),
        prompt: JOB_PROMPT,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.summary).toMatchObject({ ok: true, outcome: 'completed', tools: { completed: 1, failed: 0 } });
      const started = ofType(run.records, 'tool.started');
      expect(started[0]!.payload).toMatchObject({ name: 'bash', input: { command: 'cat README.md' } });
      const text = run.records
        .filter((r) => r.type === 'text')
        .map((r) => r.delta)
        .join('');
      expect(text).toContain('README describes');
      expect((provider.counts.get(format.route) ?? 0) - before).toBe(2);
    });
  }
});

describe("exec-cost's bare Node job (the job floor)", () => {
  it('runs the shell call, gets the answer in two requests and keeps its lines in an lmdb file', async () => {
    const cwd = scratchProject();
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-job-floor-'));
    const before = provider.counts.get('POST /v1/messages') ?? 0;
    // The provider answers from this process: the job runs as an asynchronous child.
    const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'bench/dist/bench/support/job-floor.js'), JOB_PROMPT], {
        cwd,
        env: { PATH: process.env.PATH, HOME: home, ANTHROPIC_BASE_URL: provider.origin },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: 'session.started' });
    expect(lines.find((l) => l.type === 'tool.finished')?.output).toBe(
      fs.readFileSync(path.join(cwd, 'README.md'), 'utf8'),
    );
    expect(run.stdout).toContain('README describes');
    expect((provider.counts.get('POST /v1/messages') ?? 0) - before).toBe(2);
    expect(fs.statSync(path.join(home, '.job-floor-store')).size).toBeGreaterThan(0);
  });
});
