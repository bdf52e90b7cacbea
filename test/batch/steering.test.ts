/**
 * A batch A/B of system prompts and instructions: each line's `system`, `instructions` and
 * `outputSchema` reach its run (the loopback provider's request bodies show them), the records
 * carry the effective prompt's digest, and `batch report --compare` groups the lines by it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { sha256Of } from '../../lib/instructions/load.js';
import { runCli } from '../helpers/cli.js';
import { cleanEnv, contentTypeOf, tempDir, turnBody } from '../exec/helpers.js';
import { readRecords } from './helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('batch lines with their own system prompt, instructions and output schema', () => {
  it('runs each line with its own, records the digest, and groups the comparison by it', async () => {
    const dir = tempDir('minicode-batch-steer-');
    fs.writeFileSync(path.join(dir, 'AGENTS.md'), 'FOLDER RULES\n');
    const schema = { type: 'object', properties: { verdict: { enum: ['pass', 'fail'] } }, required: ['verdict'] };
    const lines = [
      { id: 'a', prompt: 'grade it', system: 'You grade patches.' },
      { id: 'b', prompt: 'grade it', instructions: false },
      { id: 'c', prompt: 'grade it', instructions: 'INLINE RULES', outputSchema: schema },
    ];
    fs.writeFileSync(path.join(dir, 'in.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const turns = [
      { text: 'a done' },
      { text: 'b done' },
      { calls: [{ id: 'call_c1', name: 'submit_result', args: { verdict: 'pass' } }] },
      { text: 'c done' },
    ];
    const server = await startReplayServer(
      turns.map((t, i) => streamOk(turnBody('openai-chat', t, i + 1), contentTypeOf('openai-chat'))),
    );
    servers.push(server);
    const out = path.join(dir, 'out');
    const env = cleanEnv(tempDir('minicode-home-'));
    const r = await runCli(
      [
        'batch',
        path.join(dir, 'in.jsonl'),
        '--out',
        out,
        '--concurrency',
        '1',
        '--provider',
        'openai-chat',
        '--model',
        'gpt-4.1-mini',
        '--base-url',
        `${server.origin}/v1`,
      ],
      {
        env,
        cwd: dir,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const bodies = server.requests.map((q) => JSON.parse(q.body));
    const system = (i: number): string => bodies[i].messages[0].content;
    expect(system(0).startsWith('You grade patches.\n\n# Project instructions')).toBe(true);
    expect(system(0)).toContain('FOLDER RULES');
    expect(system(1)).toContain('You are minicode');
    expect(system(1)).not.toContain('FOLDER RULES');
    expect(system(2)).toContain('INLINE RULES');
    expect(system(2)).not.toContain('FOLDER RULES');
    expect(bodies[2].tools.find((t: any) => t.function.name === 'submit_result').function.parameters).toMatchObject({
      required: ['verdict'],
    });
    const records = readRecords(out);
    const byId = new Map(records.map((rec) => [rec.id, rec]));
    expect(byId.get('a')!.systemPromptDigest).toBe(sha256Of(system(0)));
    expect(byId.get('c')).toMatchObject({ result: { verdict: 'pass' }, systemPromptDigest: sha256Of(system(2)) });
    expect(new Set(records.map((rec) => rec.systemPromptDigest)).size).toBe(3);

    const report = await runCli(['batch', 'report', out, '--compare', out], { env, cwd: dir });
    expect(report.code, report.stderr).toBe(0);
    for (const rec of records)
      expect(report.stdout).toContain(`| A | ${(rec.systemPromptDigest as string).slice(7, 19)} | 1 | 1 |`);
    expect(fs.readFileSync(path.join(out, 'report.html'), 'utf8')).toContain('By system prompt');
  });

  it('a line with a bad outputSchema is its own error record, MINICODE_E_OUTPUT_SCHEMA', async () => {
    const dir = tempDir('minicode-batch-steer-');
    fs.writeFileSync(
      path.join(dir, 'in.jsonl'),
      `${JSON.stringify({ id: 'x', prompt: 'go', outputSchema: { type: 'string' } })}\n`,
    );
    const out = path.join(dir, 'out');
    const r = await runCli(
      [
        'batch',
        path.join(dir, 'in.jsonl'),
        '--out',
        out,
        '--provider',
        'openai-chat',
        '--model',
        'gpt-4.1-mini',
        '--base-url',
        'http://127.0.0.1:9/v1',
      ],
      {
        env: cleanEnv(tempDir('minicode-home-')),
        cwd: dir,
      },
    );
    expect(r.code).not.toBe(0);
    expect(readRecords(out, 'errors.jsonl')[0]).toMatchObject({ id: 'x', error: { code: 'MINICODE_E_OUTPUT_SCHEMA' } });
  });
});
