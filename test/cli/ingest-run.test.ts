import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../../lib/store/index.js';
import { CLI, FIXTURES, HAVE_FIXTURES, ROOT, fixtureSkipNote, runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

const STREAMS = path.join(ROOT, 'test/streams');
const STAND_IN = path.join(ROOT, 'test/helpers/stand-in-agent.mjs');

function tmp(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** The event types stored for a session, read by a second (read-only) opener; none while the store does not exist yet. */
async function storedTypes(dir: string, sessionId: string): Promise<string[]> {
  if (!fs.existsSync(dir)) return [];
  const store = openStore({ dir, readOnly: true });
  try {
    return store.readSession(sessionId).map((e) => e.type);
  } finally {
    await store.close();
  }
}

function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('minicode ingest', () => {
  const cases: [string, string, string][] = [
    ['anthropic', 'anthropic/text-tool-complete.sse', 'completed'],
    ['openai-chat', 'openai-chat/truncated-after-text.sse', 'partial'],
    ['gemini', 'gemini/text-thought-call.sse', 'completed'],
    ['ollama', 'ollama/generate-bad-line.ndjson', 'completed'],
    ['codex', 'native/codex-all-items.jsonl', 'completed'],
  ];

  it.each(cases)(
    'decodes a hand-made %s stream into envelopes with the summary last (%s)',
    async (format, file, outcome) => {
      const result = await runCli(['ingest', '--from', format, path.join(STREAMS, file), '--json']);
      expect(result.code).toBe(0);
      const lines = jsonLines(result.stdout);
      const summary = lines.at(-1)!;
      expect(summary.type).toBe('summary');
      expect(summary.outcome).toBe(outcome);
      expect(lines.slice(0, -1).every((l) => l.type === 'text' || l.schema === 'minicode.output.v1')).toBe(true);
    },
  );

  it('stores what it decodes so that replay rebuilds the same outcome', async () => {
    const store = tmp('minicode-ingest-store-');
    const ingest = await runCli([
      'ingest',
      '--from',
      'anthropic',
      path.join(STREAMS, 'anthropic/thinking-tool-overloaded.sse'),
      '--json',
      '--store',
      store,
      '--session',
      'ses_ingest_1',
    ]);
    expect(ingest.code).toBe(0);
    const live = jsonLines(ingest.stdout).at(-1)!;
    const replay = await runCli(['replay', 'ses_ingest_1', '--json', '--store', store]);
    expect(replay.code).toBe(0);
    const rebuilt = jsonLines(replay.stdout).at(-1)!;
    expect(rebuilt.outcome).toBe(live.outcome);
    expect(live.outcome).toBe('failed');
  });

  it('reads stdin with -', async () => {
    const input = fs.readFileSync(path.join(STREAMS, 'ollama/chat-thinking-tool.ndjson'));
    const result = await runCli(['ingest', '--from', 'ollama', '-', '--json'], { input });
    expect(result.code).toBe(0);
    expect(jsonLines(result.stdout).at(-1)!.ok).toBe(true);
  });

  it('fails with exit 1 and one summary line for an unreadable file, and 2 for an unknown format', async () => {
    const missing = await runCli(['ingest', '--from', 'anthropic', '/nonexistent/stream.sse', '--json']);
    expect(missing.code).toBe(1);
    expect(jsonLines(missing.stdout)).toHaveLength(1);
    expect(jsonLines(missing.stdout)[0]!.ok).toBe(false);
    const unknown = await runCli(['ingest', '--from', 'nope', 'x']);
    expect(unknown.code).toBe(2);
  });

  describe.skipIf(!HAVE_FIXTURES)('over the recorded fixtures', () => {
    fixtureSkipNote();
    // One test per recording: each spawns the CLI, so each gets its own time budget.
    const formats: Record<string, string> = {
      claude: 'claude-code',
      codex: 'codex',
      gemini: 'gemini-cli',
      opencode: 'opencode',
    };
    const recordings = HAVE_FIXTURES
      ? Object.entries(formats).flatMap(([dir, format]) =>
          fs
            .readdirSync(path.join(FIXTURES, 'native', dir))
            .filter((f) => f.endsWith('.jsonl'))
            .map((file) => [`${dir}/${file}`, format] as const),
        )
      : [];
    it.each(recordings)('decodes the native recording %s without a crash', async (file, format) => {
      const result = await runCli(['ingest', '--from', format, path.join(FIXTURES, 'native', file), '--json']);
      expect(result.code, `${file}: ${result.stderr}`).toBe(0);
      expect(jsonLines(result.stdout).at(-1)!.type).toBe('summary');
    });
  });
});

describe('minicode run --agent', () => {
  const replayFile = path.join(STREAMS, 'native/codex-all-items.jsonl');

  it('supervises a stand-in codex and stores the run', async () => {
    const home = tmp('minicode-run-');
    const result = await runCli(['run', '--agent', 'codex', 'list the files', '--json'], {
      env: { MINICODE_HOME: home, MINICODE_CODEX_BIN: STAND_IN, STAND_IN_REPLAY: replayFile, STAND_IN_DELAY_MS: '1' },
    });
    expect(result.code, result.stderr).toBe(0);
    const summary = jsonLines(result.stdout).at(-1)!;
    expect(summary.ok).toBe(true);
    const sessions = await runCli(['sessions', '--json'], { env: { MINICODE_HOME: home } });
    expect(sessions.stdout).toContain(String(summary.sessionId));
  });

  it('reports a non-zero agent exit as a failed run with exit 1', async () => {
    const result = await runCli(['run', '--agent', 'codex', 'x', '--json'], {
      env: {
        MINICODE_HOME: tmp('minicode-run-'),
        MINICODE_CODEX_BIN: STAND_IN,
        STAND_IN_REPLAY: replayFile,
        STAND_IN_EXIT_AFTER: '3',
        STAND_IN_EXIT_CODE: '3',
        STAND_IN_DELAY_MS: '1',
      },
    });
    expect(result.code).toBe(1);
    expect(jsonLines(result.stdout).at(-1)!.ok).toBe(false);
  });

  it('is a setup failure with one summary line when the agent is not installed', async () => {
    const result = await runCli(['run', '--agent', 'gemini-cli', 'x', '--json'], {
      env: { MINICODE_GEMINI_BIN: '/nonexistent/gemini' },
    });
    expect(result.code).toBe(1);
    const lines = jsonLines(result.stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.ok).toBe(false);
    expect(result.stderr).toContain('MINICODE_GEMINI_BIN');
  });

  it('rebuilds as interrupted when minicode itself is killed mid-stream', async () => {
    const home = tmp('minicode-run-crash-');
    // The agent's stream stops after its first tool starts and the agent hangs: the run cannot
    // end on its own, whatever the machine's speed.
    const partial = path.join(home, 'codex-first-tool.jsonl');
    const lines = fs.readFileSync(replayFile, 'utf8').split('\n');
    fs.writeFileSync(
      partial,
      lines.slice(0, lines.findIndex((l) => l.includes('"mcp_tool_call"')) + 1).join('\n') + '\n',
    );
    const child = spawn(process.execPath, [CLI, 'run', '--agent', 'codex', 'slow job', '--json'], {
      env: {
        ...process.env,
        MINICODE_HOME: home,
        MINICODE_CODEX_BIN: STAND_IN,
        STAND_IN_REPLAY: partial,
        STAND_IN_DELAY_MS: '1',
        STAND_IN_HANG: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let ended = false;
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.on('close', () => (ended = true));
    const sessionId = await waitFor(() => (ended ? 'ended' : /"sessionId":"([^"]+)"/.exec(stdout)?.[1]), {
      what: 'the session id on stdout',
    });
    expect(ended, 'minicode ended before its kill').toBe(false);
    // Kill once the durable tool event is in the store, as a second process reading it sees.
    await waitFor(
      async () => ended || (await storedTypes(path.join(home, 'store'), sessionId)).includes('tool.started'),
      { what: 'tool.started in the store' },
    );
    expect(ended, 'minicode ended before its kill').toBe(false);
    child.kill('SIGKILL');
    await waitFor(() => ended, { what: 'minicode to exit after SIGKILL' });
    const replay = await runCli(['replay', sessionId, '--json'], { env: { MINICODE_HOME: home } });
    expect(replay.code).toBe(0);
    expect(jsonLines(replay.stdout).at(-1)!.outcome).toBe('interrupted');
  });
});

describe('secrets never leak', () => {
  // Published test-style values, assembled at run time so this file holds no literal token.
  const githubToken = ['ghp', '_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'].join('');
  const envSecret = 'hunter2-env-credential-value-9731';

  function sseWithSecretSplitAcrossDeltas(): string {
    const pieces = [
      'Your token is ',
      githubToken.slice(0, 6),
      githubToken.slice(6, 20),
      githubToken.slice(20),
      ' and the db password is ',
      envSecret.slice(0, 9),
      envSecret.slice(9),
      '.',
    ];
    const frames = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_leak","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
      ...pieces.map(
        (p) =>
          `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: p } })}\n\n`,
      ),
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":30}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ];
    return frames.join('');
  }

  it('keeps them out of the LMDB store, the JSONL output and stderr', async () => {
    const store = tmp('minicode-leak-');
    const result = await runCli(
      ['ingest', '--from', 'anthropic', '-', '--json', '--store', store, '--session', 'ses_leak'],
      {
        input: sseWithSecretSplitAcrossDeltas(),
        env: { DB_PASSWORD: envSecret },
      },
    );
    expect(result.code).toBe(0);
    const replay = await runCli(['replay', 'ses_leak', '--json', '--store', store], {
      env: { DB_PASSWORD: envSecret },
    });
    const texts = [result.stdout, result.stderr, replay.stdout, replay.stderr];
    for (const file of fs.readdirSync(store, { recursive: true }) as string[]) {
      const full = path.join(store, file);
      if (fs.statSync(full).isFile()) texts.push(fs.readFileSync(full).toString('latin1'));
    }
    for (const text of texts) {
      expect(text).not.toContain(githubToken);
      expect(text).not.toContain(githubToken.slice(4, 20));
      expect(text).not.toContain(envSecret);
    }
    expect(result.stdout).toContain('[REDACTED:');
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'stops on %s with the events so far stored, one ok:false summary with MINICODE_E_ABORTED and exit 130',
    async (signal) => {
      const store = tmp('minicode-ingest-signal-');
      const stream = fs.readFileSync(path.join(STREAMS, 'anthropic/text-tool-complete.sse'), 'utf8');
      // The first record only (model.response.started); stdin stays open, as a live feed's.
      const end = /\r?\n\r?\n/.exec(stream)!;
      const head = stream.slice(0, end.index + end[0].length);
      const child = spawn(
        process.execPath,
        [CLI, 'ingest', '--from', 'anthropic', '-', '--json', '--store', store, '--session', 'ses_sig'],
        { stdio: ['pipe', 'pipe', 'pipe'] },
      );
      let stdout = '';
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      child.stdin.write(head);
      await waitFor(() => stdout.includes('"model.response.started"'), { what: 'the first decoded event on stdout' });
      child.kill(signal);
      expect(await exited).toBe(130);
      const lines = jsonLines(stdout);
      expect(lines.filter((l) => l.type === 'summary')).toHaveLength(1);
      const summary = lines.at(-1)!;
      expect(summary).toMatchObject({ type: 'summary', ok: false, error: { code: 'MINICODE_E_ABORTED' } });
      expect(await storedTypes(store, 'ses_sig')).toEqual(
        expect.arrayContaining(['session.started', 'model.response.started']),
      );
      const replay = await runCli(['replay', 'ses_sig', '--json', '--store', store]);
      const rebuilt = jsonLines(replay.stdout).at(-1)!;
      expect(rebuilt.ok).toBe(false);
      expect(rebuilt.outcome).toBe(summary.outcome);
    },
  );
});
