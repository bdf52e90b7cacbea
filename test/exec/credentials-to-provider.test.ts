/**
 * What goes back to the provider: a tool result that prints the environment's credential
 * values (`cat .env`, a log line) carries `[REDACTED:env:NAME]` in the next request instead of
 * the values, unless the config's `maskCredentialsInRequests` is false. The provider is a
 * loopback server that keeps every request body it was sent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { contentTypeOf, execJson, scratchProject, tempDir, turnBody } from './helpers.js';

const DB_PASSWORD = 'db-pass-sent-value-4242';
const DEPLOY_TOKEN = 'ghp_Zq8Lm3Nv7Bx2Kc5Hj9Tr4Wd6Fy1Gs0Ae8Pu3';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function run(config?: Record<string, unknown>): Promise<{ second: string; code: number | null }> {
  const turns = [
    streamOk(
      turnBody(
        'openai-chat',
        { calls: [{ id: 'call_env_1', name: 'bash', args: { command: 'cat .env backup.log' } }] },
        1,
      ),
      contentTypeOf('openai-chat'),
    ),
    streamOk(
      turnBody('openai-chat', { text: 'The project keeps its credentials in .env.' }, 2),
      contentTypeOf('openai-chat'),
    ),
  ];
  const server = await startReplayServer(turns);
  servers.push(server);
  const project = scratchProject();
  fs.writeFileSync(path.join(project, '.env'), `DB_PASSWORD=${DB_PASSWORD}\nDEPLOY_TOKEN=${DEPLOY_TOKEN}\n`);
  // Nothing around it says secret: only the exact value is known.
  fs.writeFileSync(path.join(project, 'backup.log'), `restored with ${DB_PASSWORD}\n`);
  const home = tempDir('minicode-home-');
  if (config) fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify(config));
  const result = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], {
    cwd: project,
    home,
    env: {
      DB_PASSWORD,
      DEPLOY_TOKEN,
      OPENAI_API_KEY: 'sk-proj-sentFakeKey0123456789abcdefghijklmn',
      OPENAI_BASE_URL: `${server.origin}/v1`,
    },
  });
  expect(server.requests).toHaveLength(2);
  return { second: server.requests[1]!.body, code: result.code };
}

describe('tool results sent to the provider', () => {
  it('carry the known credential values masked', async () => {
    const { second, code } = await run();
    expect(code).toBe(0);
    expect(second).not.toContain(DB_PASSWORD);
    expect(second).not.toContain(DEPLOY_TOKEN);
    expect(second).toContain('DB_PASSWORD=[REDACTED:env:DB_PASSWORD]');
    expect(second).toContain('restored with [REDACTED:env:DB_PASSWORD]');
  });

  it('carry them as printed when the config says maskCredentialsInRequests: false', async () => {
    const { second, code } = await run({ maskCredentialsInRequests: false });
    expect(code).toBe(0);
    expect(second).toContain(`restored with ${DB_PASSWORD}`);
    expect(second).toContain(DEPLOY_TOKEN);
  });
});
