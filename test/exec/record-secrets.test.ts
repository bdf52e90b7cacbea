/**
 * `exec --record DIR` keeps secrets out of the cassette: a run whose tool output holds an AWS
 * key pair and a DB_PASS value (sent to the model in the next request) is recorded, the
 * cassette directory is searched byte for byte, and the cassette still replays to the same run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { contentTypeOf, execJson, ofType, scratchProject, tempDir, turnBody } from './helpers.js';
import { rawBytes } from '../helpers/files.js';

const AWS_KEY_ID = 'AKIAQYLPMN5HHHFPZAM2';
const AWS_SECRET = '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';
const DB_PASS = 'db-pass-record-value-4242';
const SECRETS = [AWS_KEY_ID, AWS_SECRET, DB_PASS];

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('minicode exec --record', () => {
  it('writes no secret from tool output into the cassette, which still replays the run', async () => {
    // The model reads a credentials file and a .env; their contents go back to it in request 2.
    const command = 'cat aws-credentials .env backup.log';
    const turns = [
      streamOk(
        turnBody('openai-chat', { calls: [{ id: 'call_rec_1', name: 'bash', args: { command } }] }, 1),
        contentTypeOf('openai-chat'),
      ),
      streamOk(
        turnBody('openai-chat', { text: 'The project has AWS credentials and a database password in plain files.' }, 2),
        contentTypeOf('openai-chat'),
      ),
    ];
    const project = () => {
      const dir = scratchProject();
      fs.writeFileSync(
        path.join(dir, 'aws-credentials'),
        `[default]\naws_access_key_id = ${AWS_KEY_ID}\naws_secret_access_key = ${AWS_SECRET}\n`,
      );
      fs.writeFileSync(path.join(dir, '.env'), `DB_PASS=${DB_PASS}\n`);
      // Only the exact-value rule knows this one is a secret: nothing around it says so.
      fs.writeFileSync(path.join(dir, 'backup.log'), `restored with ${DB_PASS}\n`);
      return dir;
    };
    const server = await startReplayServer(turns, { chunkSize: 17 });
    servers.push(server);
    const cassette = path.join(tempDir('minicode-cassette-'), 'run');
    const env = {
      DB_PASS,
      OPENAI_API_KEY: 'sk-proj-recordFakeKey0123456789abcdefghijklmn',
      OPENAI_BASE_URL: `${server.origin}/v1`,
    };
    const recorded = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini', '--record', cassette], {
      cwd: project(),
      env,
    });
    expect(recorded.code, recorded.stderr).toBe(0);
    // The secrets did go over the wire (the model saw them): the recording is what must not keep them.
    expect(server.requests[1]!.body).toContain(AWS_SECRET);

    const files = fs.readdirSync(cassette).sort();
    expect(files).toEqual(['001.json', '001.response.sse', '002.json', '002.response.sse', 'cassette.json']);
    const bytes = rawBytes(cassette);
    for (const secret of SECRETS) expect(bytes.includes(secret), `${secret} in the cassette`).toBe(false);
    expect(fs.readFileSync(path.join(cassette, '002.json'), 'utf8')).toContain('restored with [REDACTED:env:DB_PASS]');

    // Replayed offline, the scrubbed cassette gives the same run.
    const replayed = await execJson(['--provider', 'replay', '--cassette', cassette], {
      cwd: project(),
      env: { DB_PASS },
    });
    expect(replayed.code, replayed.stderr).toBe(0);
    const text = (run: typeof recorded) =>
      ofType(run.records, 'text')
        .map((r) => r.delta)
        .join('');
    expect(text(replayed)).toBe(text(recorded));
    expect(ofType(replayed.records, 'tool.completed').map((t) => t.payload.output)).toEqual(
      ofType(recorded.records, 'tool.completed').map((t) => t.payload.output),
    );
    expect(replayed.summary).toMatchObject({ ok: true, tools: { completed: 1 } });
  });
});
