/**
 * No secret in any file minicode writes. A `ghp_` token, a password assignment and a
 * `postgres://user:password@host` URL are planted in a batch line's prompt and metadata, in an
 * exec prompt (recorded into a cassette) and in a chat prompt; then every file of the batch's
 * output folder (records, summary, report), of the store, of `$MINICODE_HOME` (history) and of
 * the cassette is read as raw bytes, and what the CLI printed is searched too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { artefactLine } from '../../lib/artefacts.js';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { CASSETTE } from '../batch/helpers.js';
import { HAVE_TMUX, quitChat, startTerm, turnsDone, type TmuxTerm } from '../chat/tmux-driver.js';
import { contentTypeOf, execJson, scratchProject, tempDir, turnBody } from '../exec/helpers.js';
import { runCli, ROOT } from '../helpers/cli.js';

if (!HAVE_TMUX) console.warn('skipping the chat part of the artefact test: tmux is not installed');

const GITHUB_TOKEN = 'ghp_Zq8Lm3Nv7Bx2Kc5Hj9Tr4Wd6Fy1Gs0Ae8Pu3';
const PASSWORD = 'Sup3rS3cret-Pw-8812';
const PG_PASSWORD = 'S3cretPassw0rd71';
const PG_URL = `postgres://alice:${PG_PASSWORD}@db.example.com:5432/app`;
/** What must appear nowhere: the token, the password, the URL's password. */
const SECRETS = [GITHUB_TOKEN, PASSWORD, PG_PASSWORD];
const PROMPT = `Deploy with token ${GITHUB_TOKEN}, password=${PASSWORD} and ${PG_URL}; what does README.md say?`;

function expectNoSecret(where: string, bytes: Buffer | string): void {
  const text = Buffer.isBuffer(bytes) ? bytes.toString('latin1') : bytes;
  for (const secret of SECRETS) expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
}

/** Every file below `dir`, one by one (the failure names the file). */
function expectNoSecretIn(dir: string): number {
  let files = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    expectNoSecret(path.relative(dir, file), fs.readFileSync(file));
    files++;
  }
  return files;
}

const servers: ReplayServer[] = [];
const terms: TmuxTerm[] = [];
afterAll(async () => {
  for (const t of terms) t.kill();
  await Promise.all(servers.map((s) => s.close()));
});

describe('the files minicode writes', () => {
  it('scrub JSON value by value: the record stays JSON, a credential-named key is masked by the credential rule', () => {
    const record = {
      id: 'a',
      timing: { firstTokenMs: 182.5 },
      tokens: 12,
      metadata: { password: PASSWORD, db: PG_URL, note: `token ${GITHUB_TOKEN}`, sort_key: 'created_at' },
    };
    const line = artefactLine(record, {});
    expect(line.endsWith('\n')).toBe(true);
    expect(JSON.parse(line)).toEqual({
      id: 'a',
      timing: { firstTokenMs: 182.5 },
      tokens: 12,
      metadata: {
        password: '[REDACTED:secret]',
        db: 'postgres://alice:[REDACTED:url-password]@db.example.com:5432/app',
        note: 'token [REDACTED:github-token]',
        sort_key: 'created_at',
      },
    });
  });

  it('hold no secret from a batch line: records, summary, report and store', async () => {
    const dir = tempDir('minicode-artefacts-');
    fs.writeFileSync(path.join(dir, 'README.md'), '# Sample\n');
    const input = path.join(dir, 'prompts.jsonl');
    fs.writeFileSync(
      input,
      `${JSON.stringify({ id: 'deploy', prompt: PROMPT, metadata: { db: PG_URL, token: GITHUB_TOKEN, note: `password=${PASSWORD}` } })}\n`,
    );
    const out = path.join(dir, 'out');
    const store = path.join(dir, 'store');
    const run = await runCli(
      ['batch', input, '--provider', 'replay', '--cassette', CASSETTE, '--store', store, '--out', out],
      { cwd: dir, env: { MINICODE_HOME: path.join(dir, 'home') } },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = await runCli(['batch', 'report', out], { cwd: dir });
    expect(report.code, report.stderr).toBe(0);
    expect(fs.readdirSync(out).sort()).toEqual([
      'batch-id',
      'errors.jsonl',
      'report.html',
      'results.jsonl',
      'summary.json',
    ]);
    // The record still says what was there.
    expect(fs.readFileSync(path.join(out, 'results.jsonl'), 'utf8')).toContain(
      'postgres://alice:[REDACTED:url-password]@db.example.com',
    );
    expect(fs.readFileSync(path.join(out, 'report.html'), 'utf8')).toContain('[REDACTED:github-token]');
    expect(expectNoSecretIn(out)).toBe(5);
    expect(expectNoSecretIn(store)).toBeGreaterThan(0);
    for (const r of [run, report]) expectNoSecret('the output of the batch commands', r.stdout + r.stderr);
  });

  it('hold no secret from an exec prompt: store and the recorded cassette', async () => {
    const server = await startReplayServer([answerTurn('The README describes the sample project.')]);
    servers.push(server);
    const cassette = path.join(tempDir('minicode-artefacts-cassette-'), 'run');
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini', '--record', cassette], {
      cwd: scratchProject(),
      prompt: PROMPT,
      env: { OPENAI_API_KEY: 'sk-proj-artefactFakeKey0123456789abcdefghijk', OPENAI_BASE_URL: `${server.origin}/v1` },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(expectNoSecretIn(cassette)).toBeGreaterThan(0);
    expect(expectNoSecretIn(run.home)).toBeGreaterThan(0);
    expectNoSecret('exec output', run.stdout + run.stderr);
  });

  it.skipIf(!HAVE_TMUX)('hold no secret from a chat prompt: history and store', async () => {
    const dir = tempDir('minicode-artefacts-chat-');
    const home = path.join(dir, 'home');
    const project = path.join(dir, 'project');
    fs.mkdirSync(project, { recursive: true });
    fs.writeFileSync(path.join(project, 'README.md'), '# chat test project\n');
    const t = startTerm(
      ['chat', '--provider', 'replay', '--cwd', project, '--cassette', path.join(ROOT, 'test/cassettes/chat-two-turn')],
      {
        cols: 200,
        rows: 40,
        cwd: project,
        env: { MINICODE_HOME: home, TERM: 'xterm-256color' },
      },
    );
    terms.push(t);
    await t.waitFor('New session');
    t.type(PROMPT);
    t.send('Enter');
    await t.waitFor(turnsDone(1));
    await quitChat(t);
    await t.waitFor('EXIT=0', { join: true });
    expect(fs.existsSync(path.join(home, 'history.jsonl'))).toBe(true);
    expect(fs.readFileSync(path.join(home, 'history.jsonl'), 'utf8')).toContain('[REDACTED:github-token]');
    expect(expectNoSecretIn(home)).toBeGreaterThan(1);
    expectNoSecret('the chat screen', t.capture());
  });
});

/** One answer of an OpenAI Chat stream. */
function answerTurn(text: string) {
  return streamOk(turnBody('openai-chat', { text }, 1), contentTypeOf('openai-chat'));
}
