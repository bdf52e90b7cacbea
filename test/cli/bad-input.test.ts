/**
 * Bad input at the command line ends in a coded error and its documented exit code, never in
 * "internal error", a crash, or a request to the model: an empty prompt, a directory where a
 * recorded stream is expected, an empty session id, a missing session, a store path that is a
 * file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseUrlForOrigin } from '../../lib/decode/formats.js';
import { parseBatchInput } from '../../lib/batch/input.js';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { CASSETTE } from '../batch/helpers.js';
import { cleanEnv, scratchProject, tempDir } from '../exec/helpers.js';
import { ROOT, runCli, type CliResult } from '../helpers/cli.js';

const STREAM = path.join(ROOT, 'test/streams/native/codex-all-items.jsonl');

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** The one `ok:false` summary line of a `--json` failure. */
function onlySummary(r: CliResult): Record<string, any> {
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  expect(lines, r.stdout).toHaveLength(1);
  const summary = JSON.parse(lines[0]!) as Record<string, any>;
  expect(summary).toMatchObject({ type: 'summary', ok: false });
  return summary;
}

/** `exec --json` opens its store after `session.started`: that line, then the one `ok:false` summary. */
function summaryAfterStart(r: CliResult): Record<string, any> {
  const records = r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, any>);
  expect(records.map((x) => x.type)).toEqual(['session.started', 'summary']);
  expect(records[1]).toMatchObject({ type: 'summary', ok: false });
  return records[1]!;
}

function expectNoCrash(r: CliResult): void {
  expect(r.signal).toBeNull();
  expect(r.stderr).not.toContain('internal error');
}

describe('an empty prompt', () => {
  it.each([[''], ['  \n\t ']])(
    'is a usage error for exec --json (%j): exit 2, one ok:false line, nothing sent to the model',
    async (prompt) => {
      const server = await startReplayServer(CASSETTE, { order: 'by-turn' });
      servers.push(server);
      const r = await runCli(
        [
          'exec',
          prompt,
          '--json',
          '--cwd',
          scratchProject(),
          '--provider',
          'openai-chat',
          '--model',
          'gpt-4.1-mini',
          '--base-url',
          baseUrlForOrigin('openai-chat', server.origin),
        ],
        { env: cleanEnv(tempDir('minicode-home-'), { OPENAI_API_KEY: 'sk-test-not-a-real-key-000000' }) },
      );
      expect(r.code, r.stderr).toBe(2);
      expect(onlySummary(r).error).toMatchObject({ category: 'USER_ERROR', code: 'MINICODE_E_PROMPT_EMPTY' });
      expect(server.requests).toHaveLength(0);
    },
  );

  it('is a usage error for exec without --json (exit 2) and stores no session', async () => {
    const home = tempDir('minicode-home-');
    const r = await runCli(['exec', ' ', '--provider', 'replay', '--cassette', CASSETTE, '--cwd', scratchProject()], {
      env: cleanEnv(home),
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(fs.existsSync(path.join(home, 'store'))).toBe(false);
  });

  it('is a usage error for run --agent, before looking for the agent', async () => {
    const r = await runCli(['run', '--agent', 'codex', '', '--json']);
    expect(r.code).toBe(2);
    expect(onlySummary(r).error.code).toBe('MINICODE_E_PROMPT_EMPTY');
  });

  it('is an invalid batch line (whitespace only), reported with its line number', () => {
    const parsed = parseBatchInput('{"id":"a","prompt":"   "}\n{"id":"b","prompt":"ok"}\n');
    expect(parsed.lines.map((l) => l.id)).toEqual(['b']);
    expect(parsed.problems).toMatchObject([{ line: 1, code: 'MINICODE_E_BATCH_LINE_SHAPE' }]);
  });
});

describe('words beyond what a command takes', () => {
  it('make an unquoted exec prompt a usage error (exit 2) that says to quote it, with nothing sent to the model', async () => {
    const server = await startReplayServer(CASSETTE, { order: 'by-turn' });
    servers.push(server);
    const home = tempDir('minicode-home-');
    const r = await runCli(
      [
        'exec',
        'fix',
        'the',
        'bug',
        '--json',
        '--cwd',
        scratchProject(),
        '--provider',
        'openai-chat',
        '--model',
        'gpt-4.1-mini',
        '--base-url',
        baseUrlForOrigin('openai-chat', server.origin),
      ],
      { env: cleanEnv(home, { OPENAI_API_KEY: 'sk-test-not-a-real-key-000000' }) },
    );
    expect(r.code, r.stderr).toBe(2);
    const error = onlySummary(r).error;
    expect(error).toMatchObject({ category: 'USER_ERROR', code: 'MINICODE_E_USAGE' });
    expect(error.message).toContain('Quote the prompt as one argument');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(server.requests).toHaveLength(0);
    expect(fs.existsSync(path.join(home, 'store'))).toBe(false);
  });

  it.each([[['sessions', 'extra']], [['schema', 'foo']], [['mcp', 'list', 'x']], [['batch', 'a.jsonl', 'b.jsonl']]])(
    'make %j a usage error (exit 2) on one stderr line, not a run that drops them',
    async (args) => {
      const r = await runCli(args, { env: cleanEnv(tempDir('minicode-home-')) });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringContaining('too many arguments')]);
    },
  );
});

describe('usage errors under --json', () => {
  it.each([
    [['ingest', '--json', '--from', 'nope', 'x.jsonl'], "argument 'nope' is invalid"],
    [['ingest', '--json', 'x.jsonl'], "required option '--from <format>'"],
    [['replay', '--json'], "missing required argument 'session'"],
    [['replay', 'ses_x', '--json', '--bogus'], "unknown option '--bogus'"],
    [['run', '--json', '--agent', 'nope', 'hello'], "argument 'nope' is invalid"],
  ])(
    '%j prints its one ok:false summary line on stdout (MINICODE_E_USAGE, exit 2), as exec --json does',
    async (args, message) => {
      const r = await runCli(args, { env: cleanEnv(tempDir('minicode-home-')) });
      expectNoCrash(r);
      expect(r.code).toBe(2);
      expect(onlySummary(r)).toMatchObject({
        schema: 'minicode.output.v1',
        error: {
          code: 'MINICODE_E_USAGE',
          message: expect.stringContaining(message),
          action: `see minicode ${args[0]} --help`,
        },
      });
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    },
  );

  it('batch --json with an unknown flag prints its one ok:false batch.summary line (exit 2)', async () => {
    const r = await runCli(['batch', 'p.jsonl', '--json', '--bogus'], { env: cleanEnv(tempDir('minicode-home-')) });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout.trim())).toEqual({
      type: 'batch.summary',
      schema: 'minicode.batch.summary.v1',
      ok: false,
      error: {
        category: 'USER_ERROR',
        code: 'MINICODE_E_USAGE',
        message: "unknown option '--bogus'",
        action: 'see minicode batch --help',
      },
    });
  });
});

describe('ingest input and session ids', () => {
  it('refuses a directory as input with MINICODE_E_INPUT_UNREADABLE (exit 1), under --json as one summary line', async () => {
    const r = await runCli(['ingest', '--from', 'codex', tempDir('minicode-dir-input-'), '--json']);
    expectNoCrash(r);
    expect(r.code).toBe(1);
    expect(onlySummary(r).error.code).toBe('MINICODE_E_INPUT_UNREADABLE');
  });

  it('refuses --session "" with MINICODE_E_SESSION_ID_INVALID (exit 2) and stores nothing', async () => {
    const store = path.join(tempDir('minicode-ingest-'), 'store');
    const r = await runCli(['ingest', '--from', 'codex', STREAM, '--store', store, '--session', '']);
    expectNoCrash(r);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('MINICODE_E_SESSION_ID_INVALID');
    expect(fs.existsSync(store)).toBe(false);
  });

  it('refuses a --session id the store already holds (exit 2), the stored session unchanged', async () => {
    const store = path.join(tempDir('minicode-ingest-'), 'store');
    const first = await runCli(['ingest', '--from', 'codex', STREAM, '--store', store, '--session', 'ses_taken']);
    expect(first.code, first.stderr).toBe(0);
    const before = await runCli(['replay', 'ses_taken', '--json', '--store', store]);
    const other = path.join(ROOT, 'test/streams/native/codex-interrupted.jsonl');
    const r = await runCli(['ingest', '--from', 'codex', other, '--json', '--store', store, '--session', 'ses_taken']);
    expectNoCrash(r);
    expect(r.code).toBe(2);
    expect(onlySummary(r).error).toMatchObject({
      code: 'MINICODE_E_USAGE',
      message: expect.stringContaining('already holds a session'),
    });
    const after = await runCli(['replay', 'ses_taken', '--json', '--store', store]);
    expect(after.stdout).toBe(before.stdout);
  });
});

describe('replay and the store location', () => {
  it('reports a missing session with MINICODE_E_SESSION_NOT_FOUND (exit 1)', async () => {
    const store = tempDir('minicode-store-');
    const made = await runCli(['ingest', '--from', 'codex', STREAM, '--store', store, '--session', 'ses_present']);
    expect(made.code, made.stderr).toBe(0);
    const r = await runCli(['replay', 'ses_absent', '--json', '--store', store]);
    expect(r.code).toBe(1);
    expect(onlySummary(r).error.code).toBe('MINICODE_E_SESSION_NOT_FOUND');
  });

  it.each([
    ['replay', (file: string) => ['replay', 'ses_x', '--json', '--store', file]],
    ['sessions', (file: string) => ['sessions', '--store', file]],
    ['ingest', (file: string) => ['ingest', '--from', 'codex', STREAM, '--json', '--store', file]],
    [
      'exec',
      (file: string) => [
        'exec',
        'hello',
        '--json',
        '--provider',
        'replay',
        '--cassette',
        CASSETTE,
        '--cwd',
        scratchProject(),
        '--store',
        file,
      ],
    ],
  ])('%s with --store pointing at a file fails with MINICODE_E_STORE (exit 1), no crash', async (command, args) => {
    const file = path.join(tempDir('minicode-store-file-'), 'not-a-dir');
    fs.writeFileSync(file, 'x');
    const r = await runCli(args(file), { env: cleanEnv(tempDir('minicode-home-')) });
    expectNoCrash(r);
    expect(r.code).toBe(1);
    if (command === 'sessions') expect(r.stderr).toContain('MINICODE_E_STORE');
    else if (command === 'exec') expect(summaryAfterStart(r).error.code).toBe('MINICODE_E_STORE');
    else expect(onlySummary(r).error.code).toBe('MINICODE_E_STORE');
    expect(fs.readFileSync(file, 'utf8')).toBe('x');
  });

  it('sessions with MINICODE_HOME pointing at a file fails with MINICODE_E_STORE (exit 1) rather than listing no sessions', async () => {
    const file = path.join(tempDir('minicode-home-file-'), 'not-a-dir');
    fs.writeFileSync(file, 'x');
    const r = await runCli(['sessions'], { env: { ...cleanEnv(tempDir('minicode-home-')), MINICODE_HOME: file } });
    expectNoCrash(r);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('MINICODE_E_STORE');
    expect(r.stdout).toBe('');
    expect(fs.readFileSync(file, 'utf8')).toBe('x');
  });
});

describe('directory flags', () => {
  it.each([
    [
      'exec --cwd missing',
      (dir: string) => [
        'exec',
        'hello',
        '--json',
        '--provider',
        'replay',
        '--cassette',
        CASSETTE,
        '--cwd',
        path.join(dir, 'missing'),
      ],
    ],
    [
      'exec --cwd a file',
      (dir: string) => [
        'exec',
        'hello',
        '--json',
        '--provider',
        'replay',
        '--cassette',
        CASSETTE,
        '--cwd',
        path.join(dir, 'file'),
      ],
    ],
    [
      'exec --record a file',
      (dir: string) => [
        'exec',
        'hello',
        '--json',
        '--provider',
        'replay',
        '--cassette',
        CASSETTE,
        '--cwd',
        dir,
        '--record',
        path.join(dir, 'file'),
      ],
    ],
  ])('%s is a usage error (MINICODE_E_USAGE, exit 2) before any run', async (_label, args) => {
    const dir = tempDir('minicode-dir-flags-');
    fs.writeFileSync(path.join(dir, 'file'), 'x');
    const home = tempDir('minicode-home-');
    const r = await runCli(args(dir), { env: cleanEnv(home), timeoutMs: 20_000 });
    expectNoCrash(r);
    expect(r.code).toBe(2);
    expect(onlySummary(r).error.code).toBe('MINICODE_E_USAGE');
    expect(fs.existsSync(path.join(home, 'store'))).toBe(false);
  });

  it.each([
    ['undo', 'missing'],
    ['undo', 'file'],
    ['checkpoints', 'missing'],
    ['checkpoints', 'file'],
  ])('%s --cwd naming a %s is a usage error (exit 2), under --json as one ok:false line', async (command, target) => {
    const dir = tempDir('minicode-dir-flags-');
    fs.writeFileSync(path.join(dir, 'file'), 'x');
    const r = await runCli([command, '--json', '--cwd', path.join(dir, target)], {
      env: cleanEnv(tempDir('minicode-home-')),
    });
    expectNoCrash(r);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({
      ok: false,
      error: { code: 'MINICODE_E_USAGE', message: expect.stringContaining('--cwd') },
    });
  });

  it.each([['undo'], ['checkpoints']])(
    '%s --session outside the session id grammar is MINICODE_E_SESSION_ID_INVALID (exit 2), its escapes not echoed',
    async (command) => {
      const r = await runCli(
        [command, '--json', '--cwd', tempDir('minicode-dir-flags-'), '--session', 'x\u001b]0;title\u0007y'],
        { env: cleanEnv(tempDir('minicode-home-')) },
      );
      expectNoCrash(r);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout.trim())).toMatchObject({
        ok: false,
        error: { code: 'MINICODE_E_SESSION_ID_INVALID' },
      });
      expect(r.stdout + r.stderr).not.toContain('\u001b');
    },
  );

  it('exec --record naming a folder that holds a cassette is a usage error (exit 2), the cassette untouched', async () => {
    const dir = tempDir('minicode-dir-flags-');
    const cassette = path.join(dir, 'cassette');
    fs.cpSync(CASSETTE, cassette, { recursive: true });
    const before = fs.readdirSync(cassette).map((f) => [f, fs.readFileSync(path.join(cassette, f), 'utf8')]);
    const home = tempDir('minicode-home-');
    const r = await runCli(
      [
        'exec',
        'hello',
        '--json',
        '--provider',
        'replay',
        '--cassette',
        CASSETTE,
        '--cwd',
        scratchProject(),
        '--record',
        cassette,
      ],
      { env: cleanEnv(home) },
    );
    expectNoCrash(r);
    expect(r.code).toBe(2);
    expect(onlySummary(r).error).toMatchObject({
      code: 'MINICODE_E_USAGE',
      message: expect.stringContaining('already holds a cassette'),
    });
    expect(fs.readdirSync(cassette).map((f) => [f, fs.readFileSync(path.join(cassette, f), 'utf8')])).toEqual(before);
    expect(fs.existsSync(path.join(home, 'store'))).toBe(false);
  });

  it('batch --out naming a file is a usage error (exit 2), the file untouched', async () => {
    const dir = tempDir('minicode-dir-flags-');
    const input = path.join(dir, 'p.jsonl');
    fs.writeFileSync(input, '{"id":"a","prompt":"hi"}\n');
    fs.writeFileSync(path.join(dir, 'out'), 'x');
    const r = await runCli(
      [
        'batch',
        input,
        '--json',
        '--provider',
        'replay',
        '--cassette',
        CASSETTE,
        '--store',
        path.join(dir, 'store'),
        '--out',
        path.join(dir, 'out'),
      ],
      { cwd: dir },
    );
    expectNoCrash(r);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({
      type: 'batch.summary',
      ok: false,
      error: { code: 'MINICODE_E_USAGE' },
    });
    expect(fs.readFileSync(path.join(dir, 'out'), 'utf8')).toBe('x');
  });
});

describe('deadlines longer than a Node timer can wait (2^31 - 1 ms)', () => {
  // Node fires a longer timer after 1 ms: such a deadline would end every run at once.
  const TOO_LONG = '2147483648';

  it.each([
    ['exec --timeout', ['--timeout', TOO_LONG], {}],
    ['MINICODE_TIMEOUT_MS', [], { MINICODE_TIMEOUT_MS: TOO_LONG }],
    ['MINICODE_RETRY_BACKOFF_MS (its longest wait is 4 units)', [], { MINICODE_RETRY_BACKOFF_MS: String(2 ** 29) }],
  ])(
    '%s is a usage error (exit 2) with the bound in its message, and nothing is sent to the model',
    async (_label, args, env) => {
      const server = await startReplayServer(CASSETTE, { order: 'by-turn' });
      servers.push(server);
      const r = await runCli(
        [
          'exec',
          'hello',
          '--json',
          '--cwd',
          scratchProject(),
          '--provider',
          'openai-chat',
          '--model',
          'gpt-4.1-mini',
          '--base-url',
          baseUrlForOrigin('openai-chat', server.origin),
          ...args,
        ],
        { env: cleanEnv(tempDir('minicode-home-'), { OPENAI_API_KEY: 'sk-test-not-a-real-key-000000', ...env }) },
      );
      expectNoCrash(r);
      expect(r.code, r.stderr).toBe(2);
      expect(onlySummary(r).error).toMatchObject({
        code: 'MINICODE_E_USAGE',
        message: expect.stringMatching(/at most 2147483647 ms|up to 536870911/),
      });
      expect(r.stderr).not.toContain('TimeoutOverflowWarning');
      expect(server.requests).toHaveLength(0);
    },
  );

  it('is refused as the config timeoutMs (MINICODE_E_CONFIG_INVALID, exit 1)', async () => {
    const home = tempDir('minicode-home-');
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ timeoutMs: 2 ** 31 }));
    const r = await runCli(
      ['exec', 'hello', '--json', '--provider', 'replay', '--cassette', CASSETTE, '--cwd', scratchProject()],
      { env: cleanEnv(home) },
    );
    expect(r.code).toBe(1);
    expect(onlySummary(r).error).toMatchObject({
      code: 'MINICODE_E_CONFIG_INVALID',
      message: expect.stringContaining('timeoutMs'),
    });
  });

  it('is refused as batch --verify-timeout (exit 2) before any line runs', async () => {
    const dir = tempDir('minicode-deadline-');
    const input = path.join(dir, 'p.jsonl');
    fs.writeFileSync(input, '{"id":"a","prompt":"hi"}\n');
    const out = path.join(dir, 'out');
    const r = await runCli(
      [
        'batch',
        input,
        '--json',
        '--provider',
        'replay',
        '--cassette',
        CASSETTE,
        '--store',
        path.join(dir, 'store'),
        '--out',
        out,
        '--verify',
        'true',
        '--verify-timeout',
        TOO_LONG,
      ],
      { cwd: dir },
    );
    expectNoCrash(r);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({
      type: 'batch.summary',
      ok: false,
      error: { code: 'MINICODE_E_USAGE' },
    });
    expect(fs.existsSync(out)).toBe(false);
  });

  it('is refused by mcp add --startup-timeout (exit 2), the config left unwritten', async () => {
    const home = tempDir('minicode-home-');
    const r = await runCli(['mcp', 'add', 'fs', 'node', '--startup-timeout', TOO_LONG], { env: cleanEnv(home) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--startup-timeout');
    expect(fs.existsSync(path.join(home, 'config.json'))).toBe(false);
  });
});

describe('integer flags', () => {
  it.each([
    ['--max-steps', '0x10'],
    ['--max-steps', '1e1'],
    ['--max-steps', ' 5'],
    ['--max-steps', '2.0'],
    ['--timeout', '1e3'],
  ])('exec %s "%s" is a usage error (exit 2) that asks for decimal digits', async (flag, value) => {
    const r = await runCli(
      [
        'exec',
        'hello',
        '--json',
        '--provider',
        'replay',
        '--cassette',
        CASSETTE,
        '--cwd',
        scratchProject(),
        flag,
        value,
      ],
      { env: cleanEnv(tempDir('minicode-home-')) },
    );
    expectNoCrash(r);
    expect(r.code, r.stderr).toBe(2);
    expect(onlySummary(r).error).toMatchObject({
      code: 'MINICODE_E_USAGE',
      message: expect.stringContaining('decimal digits'),
    });
  });

  it('exec takes a plain decimal --max-steps', async () => {
    const r = await runCli(
      [
        'exec',
        'hello',
        '--json',
        '--provider',
        'replay',
        '--cassette',
        CASSETTE,
        '--cwd',
        scratchProject(),
        '--max-steps',
        '5',
      ],
      { env: cleanEnv(tempDir('minicode-home-')) },
    );
    expect(r.code, r.stderr).not.toBe(2);
  });

  it.each([
    ['--concurrency', '0x10'],
    ['--nice', ' 3'],
  ])('batch %s "%s" is a usage error (exit 2) and one batch summary', async (flag, value) => {
    const dir = tempDir('minicode-batch-int-');
    fs.writeFileSync(path.join(dir, 'in.jsonl'), '{"prompt":"x"}\n');
    const r = await runCli(
      ['batch', path.join(dir, 'in.jsonl'), '--out', path.join(dir, 'out'), '--json', flag, value],
      { env: cleanEnv(tempDir('minicode-home-')) },
    );
    expectNoCrash(r);
    expect(r.code, r.stderr).toBe(2);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({
      type: 'batch.summary',
      ok: false,
      error: { code: 'MINICODE_E_USAGE' },
    });
  });

  it('mcp add --startup-timeout 0x10 is a usage error (exit 2) and writes no config', async () => {
    const home = tempDir('minicode-home-');
    const r = await runCli(['mcp', 'add', 'files', 'node', 'server.js', '--startup-timeout', '0x10'], {
      env: cleanEnv(home),
    });
    expectNoCrash(r);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('decimal digits');
    expect(fs.existsSync(path.join(home, 'config.json'))).toBe(false);
  });
});

describe('batch --json summaries', () => {
  it('a setup failure summary names the same schema as a success summary', async () => {
    const dir = tempDir('minicode-batch-schema-');
    fs.writeFileSync(path.join(dir, 'in.jsonl'), '{"prompt":"x"}\n');
    const r = await runCli(
      ['batch', path.join(dir, 'in.jsonl'), '--out', path.join(dir, 'out'), '--json', '--concurrency', '0'],
      { env: cleanEnv(tempDir('minicode-home-')) },
    );
    expectNoCrash(r);
    expect(r.code, r.stderr).toBe(2);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({
      type: 'batch.summary',
      schema: 'minicode.batch.summary.v1',
      ok: false,
      error: { code: 'MINICODE_E_USAGE' },
    });
  });
});
