/**
 * Messages that quote input never carry its terminal controls to stderr or stdout: a bad batch
 * line's JSON.parse excerpt, a damaged config file's, an unknown provider named in the config,
 * `--model`, an `mcp add` name, a server's failure in `mcp list`, an unknown flag. Each quotes
 * an OSC title sequence, a CSI clear-screen and an 8-bit CSI; the output must hold none of them
 * raw, and show them escaped so the person sees what was wrong. And a `--json` setup failure's
 * summary line shows the prompt scrubbed like event output.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { neutralise } from '../../lib/safe-text.js';
import { CASSETTE } from '../batch/helpers.js';
import { runCli, type CliResult } from '../helpers/cli.js';

/** An OSC window title, a CSI clear screen, an 8-bit CSI and a bidi override. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202e';
const RAW = /[\u001b\u0007\u009b\u202e]/;

function home(config?: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-quoted-'));
  if (config !== undefined) fs.writeFileSync(path.join(dir, 'config.json'), config);
  return dir;
}

function expectNeutralised(r: CliResult): void {
  expect(r.stdout + r.stderr).not.toMatch(RAW);
  expect(r.stderr).toContain('\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u{202e}');
}

describe('a message that quotes input', () => {
  it('shows controls as visible escapes, and leaves other text alone', () => {
    expect(neutralise(`got "${HOSTILE}"`)).toBe('got "\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u{202e}"');
    expect(neutralise('line one\n\ttab, C:\\path, emoji 👍🏽, 日本語')).toBe(
      'line one\n\ttab, C:\\path, emoji 👍🏽, 日本語',
    );
  });

  it('neutralises --model', async () => {
    const r = await runCli(['exec', 'hi', '--provider', 'openai', '--model', `evil${HOSTILE}`], {
      env: { MINICODE_HOME: home(), OPENAI_API_KEY: 'sk-proj-quotedFakeKey0123456789abcdefghij' },
    });
    expect(r.code).toBe(1);
    expectNeutralised(r);
  });

  it('neutralises an unknown provider named in the config', async () => {
    const r = await runCli(['exec', 'hi', '--json'], {
      env: { MINICODE_HOME: home(JSON.stringify({ provider: `bogus${HOSTILE}` })), MINICODE_PROVIDER: undefined },
    });
    expect(r.code).toBe(1);
    expectNeutralised(r);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });

  it("neutralises a damaged config file's JSON.parse excerpt", async () => {
    const r = await runCli(['exec', 'hi', '--json'], { env: { MINICODE_HOME: home(`{"provider": ${HOSTILE} }`) } });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toMatch(RAW);
    expect(r.stderr).toContain('\\x1b');
  });

  it("neutralises a bad batch line's JSON.parse excerpt", async () => {
    const dir = home();
    fs.writeFileSync(path.join(dir, 'in.jsonl'), `{"id": ${HOSTILE} }\n`);
    const r = await runCli(['batch', 'in.jsonl', '--out', 'out', '--provider', 'replay', '--cassette', CASSETTE], {
      cwd: dir,
      env: { MINICODE_HOME: dir },
    });
    expect(r.stdout + r.stderr).not.toMatch(RAW);
    expect(r.stderr).toContain('MINICODE_E_BATCH_LINE_JSON');
    expect(r.stderr).toContain('\\x1b');
  });

  it('neutralises an mcp add name', async () => {
    const r = await runCli(['mcp', 'add', `fs${HOSTILE}`, '--', 'echo'], { env: { MINICODE_HOME: home() } });
    expect(r.code).toBe(2);
    expectNeutralised(r);
  });

  it("neutralises a server's failure in mcp list", async () => {
    const config = {
      mcpServers: {
        broken: {
          command: process.execPath,
          args: ['-e', `process.stderr.write(${JSON.stringify(`boom ${HOSTILE}\n`)}); process.exit(3)`],
        },
      },
    };
    const r = await runCli(['mcp', 'list'], { env: { MINICODE_HOME: home(JSON.stringify(config)) } });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toMatch(RAW);
    expect(r.stdout + r.stderr).toContain('boom');
  });

  it('neutralises an unknown flag', async () => {
    const r = await runCli(['exec', `--bo${HOSTILE}gus`, 'hi', '--json'], { env: { MINICODE_HOME: home() } });
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).not.toMatch(RAW);
    expect(r.stderr).toContain('\\x1b');
  });
});

describe('a --json setup failure', () => {
  const prompt = 'deploy with ghp_Zq8Lm3Nv7Bx2Kc5Hj9Tr4Wd6Fy1Gs0Ae8Pu3 and password=Sup3rS3cret-Pw-8812';
  it.each([
    ['an unknown provider', ['--provider', 'bogus']],
    ['a bad --max-steps', ['--max-steps', '0']],
  ])('with %s shows the prompt scrubbed', async (_what, flags) => {
    const r = await runCli(['exec', prompt, '--json', ...flags], { env: { MINICODE_HOME: home() } });
    expect(r.code).not.toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0]!) as { ok: boolean; prompt: string };
    expect(summary.ok).toBe(false);
    expect(summary.prompt).toBe('deploy with [REDACTED:github-token] and password=[REDACTED:password]');
    expect(r.stdout + r.stderr).not.toContain('Sup3rS3cret');
    expect(r.stdout + r.stderr).not.toContain('ghp_Zq8');
  });
});
