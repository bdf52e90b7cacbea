/**
 * The built-in tools validate their input without zod (lib/tools/input-check.ts, against the
 * JSON Schemas generated into lib/tools/input-json-schemas.ts), so a run that uses only them
 * never loads zod. These tests hold that validator to zod's own answers on the zod source of
 * the schemas (lib/tools/input-schemas.ts), and the generated file to that source.
 */
import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../lib/tools/index.js';
import { inputSchemaOf } from '../../lib/tools/input-check.js';
import { FINDING_JSON_SCHEMA, INPUT_JSON_SCHEMAS } from '../../lib/tools/input-json-schemas.js';
import { FindingInput, TOOL_INPUT_SCHEMAS, toJsonSchema } from '../../lib/tools/input-schemas.js';
import { planIssues } from '../../lib/tools/update-plan.js';

/** Values of every JSON type, including the edges of zod's checks (empty strings, fractions, unsafe integers). */
const VALUES: unknown[] = [undefined, null, 0, 1, -1, 1.5, 600_000, 600_001, 2 ** 53, 1e300, -1e300, '', 'x', 'pending', 'in_progress', 'bogus', true, false, [], [''], ['a', 3], [{}], {}, { a: 1 }];

/** A valid input of each tool, the starting point of the corpus. */
const VALID: Record<string, Record<string, unknown>> = {
  read_file: { path: 'a.txt', offset: 2, limit: 10 },
  write_file: { path: 'a.txt', content: 'hello' },
  edit: { path: 'a.txt', old_string: 'a', new_string: 'b', replace_all: true },
  bash: { command: 'ls', timeout_ms: 1000 },
  grep: { pattern: 'x', path: 'src', glob: '*.ts', ignore_case: true },
  glob: { pattern: '**/*.ts', path: 'src' },
  git_commit: { message: 'm', paths: ['a', 'b'] },
  submit_result: { findings: [{ category: 'c', severity: 's', summary: 'x', evidence: { line: 1 } }], extra: [1] },
  update_plan: { explanation: 'why', plan: [{ step: 'one', status: 'pending' }] },
  ask_user: { question: 'which?' },
};

/** The valid input, then each key left out or replaced by each of {@link VALUES}, unknown keys added, nested values varied, and non-objects. */
function corpus(valid: Record<string, unknown>): unknown[] {
  const out: unknown[] = [valid, { ...valid, unknown_key: 1, another: 'x' }, ...VALUES];
  for (const key of Object.keys(valid)) {
    const { [key]: _left, ...rest } = valid;
    out.push(rest);
    for (const value of VALUES) out.push({ ...valid, [key]: value });
    const v = valid[key];
    if (Array.isArray(v) && typeof v[0] === 'object') {
      const item = v[0] as Record<string, unknown>;
      for (const inner of Object.keys(item)) {
        const { [inner]: _gone, ...without } = item;
        out.push({ ...valid, [key]: [without] });
        for (const value of VALUES) out.push({ ...valid, [key]: [item, { ...item, [inner]: value, more: 1 }] });
      }
    }
  }
  return out;
}

/** What a validator answered, comparable across both (key order of the data included). */
function answer(result: { success: boolean; data?: unknown; error?: { issues: readonly { path: PropertyKey[]; message: string }[] } }): unknown {
  return result.success ? { ok: JSON.stringify(result.data) } : { issues: result.error!.issues.map((i) => [i.path.map(String), i.message]) };
}

describe('the built-in tools’ input validation without zod', () => {
  it('uses JSON Schemas that are exactly what zod generates from the tools’ zod schemas (run `npm run build && node dist/scripts/gen-tool-schemas.js`)', () => {
    const fresh = Object.fromEntries(Object.entries(TOOL_INPUT_SCHEMAS).map(([name, schema]) => [name, toJsonSchema(schema)]));
    expect(JSON.stringify(INPUT_JSON_SCHEMAS)).toBe(JSON.stringify(fresh));
    expect(JSON.stringify(FINDING_JSON_SCHEMA)).toBe(JSON.stringify(toJsonSchema(FindingInput)));
  });

  it('gives every built-in tool its generated JSON Schema, as providers are sent it', () => {
    const definitions = createToolRegistry().definitions();
    expect(definitions.map((d) => d.name).sort()).toEqual(Object.keys(INPUT_JSON_SCHEMAS).sort());
    for (const d of definitions) expect(d.jsonSchema).toBe(INPUT_JSON_SCHEMAS[d.name]);
  });

  for (const [name, zodSchema] of Object.entries(TOOL_INPUT_SCHEMAS)) {
    it(`accepts, rebuilds and rejects ${name} inputs exactly as zod does, with zod's messages`, () => {
      const ours = inputSchemaOf(INPUT_JSON_SCHEMAS[name]!);
      const cases = corpus(VALID[name]!);
      expect(cases.length).toBeGreaterThan(30);
      for (const value of cases) expect(answer(ours.safeParse(value)), JSON.stringify(value)).toEqual(answer(zodSchema.safeParse(value)));
    });
  }

  it('refuses a plan with two steps in progress, naming the plan', async () => {
    const registry = createToolRegistry({ only: ['update_plan'] });
    const plan = [
      { step: 'a', status: 'in_progress' },
      { step: 'b', status: 'in_progress' },
    ];
    expect(planIssues({ plan: [{ step: 'a', status: 'in_progress' }] })).toEqual([]);
    const outcome = await registry.invoke('update_plan', JSON.stringify({ plan }), {} as never);
    expect(outcome).toMatchObject({ status: 'failed', cause: 'MODEL_ERROR', message: 'invalid arguments for update_plan: plan: at most one step may be in_progress' });
  });
});
