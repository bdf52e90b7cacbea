/**
 * What hooks print is output like any other: the context a SessionStart or UserPromptSubmit
 * hook adds, the reason a PreToolUse hook gives and the instruction a Stop hook returns go to
 * the model only after the scrub of all output (secret rules and the environment's credential
 * values), and nothing of a credential a hook read from its own files reaches the provider, the
 * LMDB store, stdout or stderr. Real hook subprocesses, a loopback provider that keeps every
 * request body, the real store on disk.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReplayServer, type Exchange, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { contentTypeOf, execJson, ofType, scratchProject, tempDir, turnBody } from '../exec/helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const turn = (t: { text?: string; calls?: { id: string; name: string; args: unknown }[] }, n: number): Exchange =>
  streamOk(turnBody('openai-chat', t, n), contentTypeOf('openai-chat'));

/** A GitHub token by the format rule (`ghp_` and 36 characters), built here so no scanner flags the file. */
const TOKEN = ['ghp', 'Hk7Qw2Rt9Ys4Uv6Xz1Ab3Cd5Ef8Gh0Jk2LmN'].join('_');
/** A value under a credential keyword, caught by the password rule. */
const PASSWORD = 'Tr0ub4dor-Hook-Pw-5519';

/** Every byte under `dir` (the LMDB files and their lock), as latin1 text to search. */
function bytesUnder(dir: string): string {
  const texts: string[] = [];
  for (const file of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const full = path.join(dir, file);
    if (fs.statSync(full).isFile()) texts.push(fs.readFileSync(full).toString('latin1'));
  }
  return texts.join('\n');
}

describe('secrets in what hooks print', () => {
  it('hook context, a block reason and a Stop instruction reach the provider, the store and stderr with their secrets masked', async () => {
    const project = scratchProject();
    const dir = tempDir('minicode-hook-secrets-');
    // The hooks read the credential from a file of their own, as docs/hooks.md tells them to.
    const tokenFile = path.join(dir, 'token.txt');
    fs.writeFileSync(tokenFile, `${TOKEN}\n`);
    const say = (name: string, body: string): string => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, `#!/bin/bash\ncat > /dev/null\n${body}\n`, { mode: 0o755 });
      return file;
    };
    const start = say('start.sh', `echo "deploy with $(cat ${tokenFile})"`);
    const prompt = say(
      'prompt.sh',
      `printf '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"db password=${PASSWORD}"}}'`,
    );
    const guard = say('guard.sh', `echo "refused: the call would push with $(cat ${tokenFile})" >&2; exit 2`);
    const stop = say(
      'stop.sh',
      `if grep -q true <<<"$(cat ${dir}/stopped 2>/dev/null)"; then exit 0; fi; echo true > ${dir}/stopped; echo "check again with $(cat ${tokenFile})" >&2; exit 2`,
    );
    const home = tempDir('minicode-home-');
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({
        hooks: {
          SessionStart: [{ hooks: [{ type: 'command', command: start }] }],
          UserPromptSubmit: [{ hooks: [{ type: 'command', command: prompt }] }],
          PreToolUse: [{ matcher: 'bash', hooks: [{ type: 'command', command: guard }] }],
          Stop: [{ hooks: [{ type: 'command', command: stop }] }],
        },
      }),
    );
    const server = await startReplayServer([
      turn({ calls: [{ id: 'call_push', name: 'bash', args: { command: 'git push' } }] }, 1),
      turn({ text: 'I did not push.' }, 2),
      turn({ text: 'Checked again.' }, 3),
    ]);
    servers.push(server);
    const env = {
      OPENAI_BASE_URL: `${server.origin}/v1`,
      OPENAI_API_KEY: 'sk-proj-hookSecretsFakeKey0123456789abcdef',
    };
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], {
      cwd: project,
      home,
      env,
      prompt: 'Push the branch',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    const bodies = server.requests.map((r) => r.body).join('\n');
    // Each hook's text did reach the model, masked.
    expect(server.requests[0]!.body).toContain('deploy with [REDACTED:github-token]');
    expect(server.requests[0]!.body).toContain('[REDACTED:password]');
    expect(server.requests[1]!.body).toContain('refused: the call would push with [REDACTED:github-token]');
    expect(server.requests[2]!.body).toContain('check again with [REDACTED:github-token]');
    expect(ofType(run.records, 'hook.completed').map((e) => e.payload.hookEvent)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PreToolUse',
      'Stop',
      'Stop',
    ]);
    const store = bytesUnder(path.join(home, 'store'));
    expect(store.length).toBeGreaterThan(0);
    for (const [where, text] of [
      ['request bodies', bodies],
      ['the store', store],
      ['stdout', run.stdout],
      ['stderr', run.stderr],
    ] as const) {
      expect(text.includes(TOKEN), `${where} holds the token`).toBe(false);
      expect(text.includes(TOKEN.slice(8, 28)), `${where} holds part of the token`).toBe(false);
      expect(text.includes(PASSWORD), `${where} holds the password`).toBe(false);
    }
  });
});
