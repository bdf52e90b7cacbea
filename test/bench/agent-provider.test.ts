/**
 * The scripted provider bench/exec-cost runs every agent against: the real `minicode exec --json`
 * does the whole job through it (one shell call, then the answer) in both wire formats it speaks,
 * Anthropic Messages (minicode, Claude Code) and OpenAI Responses (Codex), so that the bench's
 * job is known to work before any peer is measured on it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_PROMPT, startAgentProvider, type AgentProvider } from '../../bench/support/agent-provider.js';
import { execJson, ofType, scratchProject } from '../exec/helpers.js';

let provider: AgentProvider;
beforeAll(async () => {
  provider = await startAgentProvider();
});
afterAll(async () => {
  await provider?.close();
});

const FORMATS = [
  { provider: 'anthropic', route: 'POST /v1/messages', env: (origin: string) => ({ ANTHROPIC_BASE_URL: origin, ANTHROPIC_API_KEY: 'sk-ant-test-fake-key-0123456789' }) },
  { provider: 'openai-responses', route: 'POST /v1/responses', env: (origin: string) => ({ OPENAI_BASE_URL: `${origin}/v1`, OPENAI_API_KEY: 'sk-test-fake-key-0123456789' }) },
];

describe('the exec-cost bench provider', () => {
  for (const format of FORMATS) {
    it(`serves minicode the shell call and then the answer over ${format.provider}`, async () => {
      const before = provider.counts.get(format.route) ?? 0;
      const run = await execJson(['--provider', format.provider, '--no-checkpoint'], { cwd: scratchProject(), env: format.env(provider.origin), prompt: JOB_PROMPT });
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
