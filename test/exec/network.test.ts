import { describe, expect, it } from 'vitest';
import net from 'node:net';
import { execJson, scratchProject } from './helpers.js';

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a provider that cannot be reached', () => {
  it('is retried, then stops the run as provider with a NETWORK_ERROR naming the host', async () => {
    const port = await closedPort();
    const run = await execJson(
      ['--provider', 'openai-chat', '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'local-model'],
      {
        cwd: scratchProject(),
        env: { MINICODE_RETRY_BACKOFF_MS: '1', OPENAI_API_KEY: 'sk-test-not-a-real-key' },
      },
    );
    expect(run.code).toBe(1);
    expect(run.summary).toMatchObject({
      ok: false,
      reason: 'provider',
      error: { category: 'NETWORK_ERROR', code: 'MINICODE_E_NETWORK' },
    });
    expect(String((run.summary.error as { message: string }).message)).toContain(`127.0.0.1:${port}`);
    expect(run.records.filter((r) => r.type === 'recovery.started')).toHaveLength(3);
  });
});
