/**
 * `transcript_path`: every hook gets the path of the session's transcript, the stored (scrubbed)
 * events one envelope a line under `$MINICODE_HOME/store/transcripts/`, 0600, brought up to date
 * before each hook runs. The real CLI (`exec`), a loopback provider, real hook subprocesses that
 * copy the file they were pointed at the moment they ran.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReplayServer, type Exchange, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { contentTypeOf, execJson, scratchProject, tempDir, turnBody } from '../exec/helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const turn = (t: { text?: string; calls?: { id: string; name: string; args: unknown }[] }, n: number): Exchange =>
  streamOk(turnBody('openai-chat', t, n), contentTypeOf('openai-chat'));

/** A node hook that copies the transcript it is given to `<dir>/<event>-<n>.jsonl` and records its input and mode. */
function copyingHook(dir: string): string {
  const file = path.join(dir, 'copy.mjs');
  fs.writeFileSync(
    file,
    `import fs from 'node:fs';
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const n = fs.readdirSync(${JSON.stringify(dir)}).filter((f) => f.startsWith(input.hook_event_name + '-')).length;
const base = ${JSON.stringify(dir)} + '/' + input.hook_event_name + '-' + n;
fs.writeFileSync(base + '.json', JSON.stringify({ input, mode: fs.statSync(input.transcript_path).mode & 0o777 }));
fs.copyFileSync(input.transcript_path, base + '.jsonl');
`,
  );
  return `node ${file}`;
}

const lines = (file: string): Record<string, any>[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

describe('transcript_path', () => {
  it('points each hook at a 0600 transcript of the scrubbed stored events, up to date when the hook runs', async () => {
    const project = scratchProject();
    const dir = tempDir('minicode-transcript-');
    const home = tempDir('minicode-home-');
    const copy = copyingHook(dir);
    const on = [{ hooks: [{ type: 'command', command: copy }] }];
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({ hooks: { PreToolUse: on, Stop: on, SessionEnd: on } }),
    );
    const server = await startReplayServer([
      turn({ calls: [{ id: 'call_ls', name: 'bash', args: { command: 'echo listed' } }] }, 1),
      turn({ text: 'The project has a README.' }, 2),
    ]);
    servers.push(server);
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini', '--sandbox', 'off'], {
      cwd: project,
      home,
      env: { OPENAI_BASE_URL: `${server.origin}/v1`, OPENAI_API_KEY: 'sk-proj-transcriptFakeKey0123456789abcd' },
      prompt: `List the files; my token is ${token}`,
    });
    expect(run.code, run.stderr).toBe(0);
    const sessionId = run.summary.sessionId as string;
    const expected = path.join(home, 'store', 'transcripts', `${sessionId}.jsonl`);

    for (const event of ['PreToolUse-0', 'Stop-0', 'SessionEnd-0']) {
      const seen = JSON.parse(fs.readFileSync(path.join(dir, `${event}.json`), 'utf8'));
      expect(seen.input.transcript_path).toBe(expected);
      expect(seen.mode).toBe(0o600);
    }
    // Before the tool ran: the prompt and the model's call, not yet its result or the answer.
    const before = lines(path.join(dir, 'PreToolUse-0.jsonl'));
    expect(before.every((e) => e.schema === 'minicode.output.v1' && e.sessionId === sessionId)).toBe(true);
    const types = before.map((e) => e.type);
    expect(types).toContain('user.message.received');
    expect(types).toContain('assistant.tool_call.completed');
    expect(types).not.toContain('tool.completed');
    // At Stop: the tool's result and the final answer are there too.
    const atStop = lines(path.join(dir, 'Stop-0.jsonl'));
    expect(atStop.find((e) => e.type === 'tool.completed')?.payload.output).toContain('listed');
    expect(atStop.find((e) => e.type === 'assistant.message.completed')?.payload.text).toBe(
      'The project has a README.',
    );
    const seqs = atStop.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    // The secret in the prompt reached the transcript masked, as it is in the store.
    const text = fs.readFileSync(expected, 'utf8');
    expect(text).not.toContain(token);
    expect(lines(expected).find((e) => e.type === 'user.message.received')?.payload.text).toContain('[REDACTED');
    expect(fs.statSync(expected).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(expected)).mode & 0o777).toBe(0o700);
  });
});
