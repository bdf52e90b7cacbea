/**
 * Typed results end to end (`exec --output-schema FILE`): the request bodies captured from the
 * loopback provider carry the schema as submit_result's parameters; a model that first submits
 * an invalid object gets ajv's errors back and then submits a valid one; a model that never does
 * ends `result_invalid` with exit 65; a bad schema file is a setup failure.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { contentTypeOf, execJson, ofType, tempDir, turnBody } from './helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { verdict: { $ref: '#/definitions/verdict' }, score: { type: 'number', minimum: 0, maximum: 1 } },
  required: ['verdict', 'score'],
  additionalProperties: false,
  definitions: { verdict: { type: 'string', enum: ['pass', 'fail'] } },
};

type Turn = { text?: string; calls?: { id: string; name: string; args: unknown }[] };
const submit = (n: number, args: unknown): Turn => ({ calls: [{ id: `call_s${n}`, name: 'submit_result', args }] });

async function run(turns: Turn[], format = 'openai-chat', extra: string[] = []) {
  const server = await startReplayServer(
    turns.map((t, i) => streamOk(turnBody(format, t, i + 1), contentTypeOf(format))),
  );
  servers.push(server);
  const dir = tempDir('minicode-typed-');
  const schemaFile = path.join(dir, 'verdict.schema.json');
  fs.writeFileSync(schemaFile, JSON.stringify(SCHEMA));
  const providerArgs =
    format === 'openai-chat'
      ? ['--provider', 'openai-chat', '--model', 'gpt-4.1-mini', '--base-url', `${server.origin}/v1`]
      : ['--provider', format, '--model', 'gemini-2.5-flash'];
  const env = format === 'gemini' ? { GOOGLE_GEMINI_BASE_URL: server.origin, GEMINI_API_KEY: 'g-test-key' } : {};
  const result = await execJson([...providerArgs, '--output-schema', schemaFile, ...extra], { cwd: dir, env });
  return { result, bodies: server.requests.map((r) => JSON.parse(r.body)) };
}

describe('exec --output-schema', () => {
  it('gives submit_result the schema, sends an invalid result back with its errors, and keeps the valid one', async () => {
    const { result, bodies } = await run([
      submit(1, { verdict: 'maybe', score: 2 }),
      submit(2, { verdict: 'pass', score: 0.9 }),
      { text: 'Submitted.' },
    ]);
    expect(result.code, result.stderr).toBe(0);
    const tool = bodies[0].tools.find((t: any) => t.function.name === 'submit_result').function;
    const { $schema: _drop, ...adapted } = SCHEMA;
    expect(tool.parameters).toEqual(adapted);
    const refusal = bodies[1].messages.find((m: any) => m.role === 'tool' && m.tool_call_id === 'call_s1')
      .content as string;
    expect(refusal).toContain('does not match the output schema');
    expect(refusal).toMatch(/\/verdict: .*pass/);
    expect(refusal).toMatch(/\/score: /);
    expect(result.summary).toMatchObject({ ok: true, result: { verdict: 'pass', score: 0.9 } });
    expect(ofType(result.records, 'session.started')[0]!.payload.outputSchemaDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('ends result_invalid (exit 65, MINICODE_E_RESULT_INVALID) when no valid result comes within the attempts, a final answer without one counting as an attempt', async () => {
    const { result, bodies } = await run([
      submit(1, { verdict: 'maybe', score: 0 }),
      { text: 'I am done.' },
      submit(3, { score: 0 }),
    ]);
    expect(result.code).toBe(65);
    expect(result.summary).toMatchObject({
      ok: false,
      reason: 'result_invalid',
      error: { code: 'MINICODE_E_RESULT_INVALID' },
    });
    expect(bodies).toHaveLength(3);
    // The final answer without a result got a reminder as the next user message.
    expect(bodies[2].messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringContaining('submit_result'),
    });
    expect(ofType(result.records, 'session.ended')[0]!.payload).toMatchObject({
      outcome: 'failed',
      reason: 'result_invalid',
    });
  });

  it('reaches Gemini as its schema subset ($ref inlined, no additionalProperties) and still validates the whole schema', async () => {
    const { result, bodies } = await run(
      [
        submit(1, { verdict: 'pass', score: 0.5, extra: true }),
        submit(2, { verdict: 'fail', score: 0 }),
        { text: 'ok' },
      ],
      'gemini',
    );
    expect(result.code, result.stderr).toBe(0);
    const declaration = bodies[0].tools[0].functionDeclarations.find((d: any) => d.name === 'submit_result');
    expect(declaration.parameters).toEqual({
      type: 'object',
      properties: {
        verdict: { type: 'string', enum: ['pass', 'fail'] },
        score: { type: 'number', minimum: 0, maximum: 1 },
      },
      required: ['verdict', 'score'],
    });
    expect(result.summary).toMatchObject({ ok: true, result: { verdict: 'fail', score: 0 } });
  });

  it('refuses a schema that does not describe an object, before any request (exit 1, one summary)', async () => {
    const dir = tempDir('minicode-typed-');
    const file = path.join(dir, 'list.json');
    fs.writeFileSync(file, JSON.stringify({ type: 'array' }));
    const result = await execJson(
      [
        '--provider',
        'openai-chat',
        '--model',
        'gpt-4.1-mini',
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--output-schema',
        file,
      ],
      { cwd: dir },
    );
    expect(result.code).toBe(1);
    expect(result.records).toHaveLength(1);
    expect(result.summary).toMatchObject({ ok: false, error: { code: 'MINICODE_E_OUTPUT_SCHEMA' } });
  });
});
