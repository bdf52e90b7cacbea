import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileOutputSchema, loadOutputSchemaFile } from '../../lib/output-schema/compile.js';
import { MinicodeError } from '../../lib/errors.js';
import { createSubmitResultTool } from '../../lib/tools/submit-result.js';
import { geminiSchema } from '../../lib/agent/requests/gemini.js';

const VERDICT_2020 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    verdict: { enum: ['pass', 'fail'] },
    score: { type: 'number', minimum: 0, maximum: 1 },
    tags: { type: 'array', items: { $ref: '#/$defs/tag' } },
  },
  required: ['verdict', 'score'],
  additionalProperties: false,
  $defs: { tag: { type: 'string', minLength: 1 } },
};

const VERDICT_07 = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { verdict: { $ref: '#/definitions/verdict' }, when: { type: 'string', format: 'date' } },
  required: ['verdict'],
  definitions: { verdict: { type: 'string', enum: ['pass', 'fail'] } },
};

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (error) {
    return error instanceof MinicodeError ? error.code : 'not a MinicodeError';
  }
  return undefined;
}

describe('output schemas', () => {
  it('validates draft 2020-12 ($defs) and reports every error as path: message', () => {
    const schema = compileOutputSchema(VERDICT_2020, 'test');
    expect(schema.validate({ verdict: 'pass', score: 0.5, tags: ['a'] })).toEqual({ ok: true });
    const bad = schema.validate({ verdict: 'maybe', score: 2, tags: [''], extra: 1 });
    expect(bad.ok).toBe(false);
    const errors = (bad as { errors: string[] }).errors;
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/verdict: .*\["pass","fail"\]/),
        expect.stringMatching(/^\/score: /),
        expect.stringMatching(/^\/tags\/0: /),
        expect.stringMatching(/^\(root\): .*\(extra\)/),
      ]),
    );
  });

  it('validates draft-07 (definitions, formats)', () => {
    const schema = compileOutputSchema(VERDICT_07, 'test');
    expect(schema.validate({ verdict: 'fail', when: '2026-12-07' })).toEqual({ ok: true });
    expect(schema.validate({ verdict: 'fail', when: 'yesterday' }).ok).toBe(false);
    expect(schema.validate({}).ok).toBe(false);
  });

  it('refuses a schema that is not an object schema, not compilable, or of an unsupported draft', () => {
    expect(codeOf(() => compileOutputSchema({ type: 'array', items: {} }, 'test'))).toBe('MINICODE_E_OUTPUT_SCHEMA');
    expect(codeOf(() => compileOutputSchema([], 'test'))).toBe('MINICODE_E_OUTPUT_SCHEMA');
    expect(
      codeOf(() => compileOutputSchema({ type: 'object', properties: { a: { type: 'no-such-type' } } }, 'test')),
    ).toBe('MINICODE_E_OUTPUT_SCHEMA');
    expect(
      codeOf(() => compileOutputSchema({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }, 'test')),
    ).toBe('MINICODE_E_OUTPUT_SCHEMA');
  });

  it('reads a schema file: unreadable is MINICODE_E_INPUT_UNREADABLE, bad JSON is MINICODE_E_OUTPUT_SCHEMA', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-schema-'));
    try {
      const file = path.join(dir, 'schema.json');
      fs.writeFileSync(file, `\ufeff${JSON.stringify(VERDICT_07)}`);
      expect(loadOutputSchemaFile(file).validate({ verdict: 'pass' })).toEqual({ ok: true });
      fs.writeFileSync(file, '{"type": "object",');
      expect(codeOf(() => loadOutputSchemaFile(file))).toBe('MINICODE_E_OUTPUT_SCHEMA');
      expect(codeOf(() => loadOutputSchemaFile(path.join(dir, 'missing.json')))).toBe('MINICODE_E_INPUT_UNREADABLE');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives providers an object root without $schema or root combinators; the full schema still validates', () => {
    const schema = compileOutputSchema(
      { ...VERDICT_2020, anyOf: [{ required: ['tags'] }, { properties: { score: { const: 1 } } }] },
      'test',
    );
    expect(schema.toolSchema).not.toHaveProperty('$schema');
    expect(schema.toolSchema).not.toHaveProperty('anyOf');
    expect(schema.toolSchema).toMatchObject({
      type: 'object',
      required: ['verdict', 'score'],
      $defs: VERDICT_2020.$defs,
    });
    expect(schema.validate({ verdict: 'pass', score: 0.5 }).ok).toBe(false);
    expect(schema.validate({ verdict: 'pass', score: 0.5, tags: [] }).ok).toBe(true);
  });

  it('submit_result takes the schema as its input schema, refuses an invalid result with the errors, then keeps a valid one', async () => {
    const schema = compileOutputSchema(VERDICT_2020, 'test');
    const tool = createSubmitResultTool(schema);
    expect(tool.jsonSchema).toBe(schema.toolSchema);
    const ctx = {} as Parameters<typeof tool.run>[1];
    const refused = await tool.run({ verdict: 'maybe', score: 0.5 }, ctx);
    expect(refused).toMatchObject({ status: 'failed', cause: 'MODEL_ERROR' });
    expect((refused as { message: string }).message).toContain('/verdict');
    const kept = await tool.run({ verdict: 'pass', score: 0.5 }, ctx);
    expect(kept).toMatchObject({ status: 'completed', result: { verdict: 'pass', score: 0.5 } });
    expect(await tool.run({ verdict: 'fail', score: 0 }, ctx)).toMatchObject({ status: 'failed' });
  });

  it("is rewritten into Gemini's subset: local refs inlined (recursion cut), const as enum, nullable types, unknown formats and keywords left out", () => {
    const tree = {
      type: 'object',
      properties: {
        verdict: { $ref: '#/definitions/verdict' },
        kind: { const: 'review' },
        note: { type: ['string', 'null'], format: 'email' },
        node: { $ref: '#/$defs/node' },
      },
      required: ['verdict'],
      additionalProperties: false,
      definitions: { verdict: { type: 'string', enum: ['pass', 'fail'] } },
      $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } },
    };
    const out = geminiSchema(compileOutputSchema(tree, 'test').toolSchema) as Record<string, any>;
    expect(JSON.stringify(out)).not.toMatch(/\$ref|\$defs|definitions|additionalProperties|const/);
    expect(out.properties.verdict).toEqual({ type: 'string', enum: ['pass', 'fail'] });
    expect(out.properties.kind).toEqual({ enum: ['review'] });
    expect(out.properties.note).toEqual({ type: 'string', nullable: true });
    let node = out.properties.node;
    for (let depth = 0; node.properties; depth++) node = node.properties.child;
    expect(node).toEqual({ type: 'object' });
  });
});
