/**
 * The built-in tools check a model's arguments with their zod schemas (lib/tools/input-schemas.ts),
 * and providers are sent JSON Schemas generated from those (lib/tools/input-json-schemas.ts).
 * These tests keep the generated file current, hold the JSON Schemas to zod's answers on a
 * corpus of good and bad inputs (a provider that enforces the schema accepts what the tool does),
 * and check the sentence the model gets for invalid arguments.
 */
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../lib/tools/index.js';
import { INPUT_JSON_SCHEMAS } from '../../lib/tools/input-json-schemas.js';
import { TOOL_INPUT_SCHEMAS, toJsonSchema } from '../../lib/tools/input-schemas.js';
import type { ToolContext } from '../../lib/tools/types.js';

/** Values of every JSON type, including the edges of zod's checks (empty strings, fractions, unsafe integers). */
const VALUES: unknown[] = [
  undefined,
  null,
  0,
  1,
  -1,
  1.5,
  600_000,
  600_001,
  2 ** 53,
  1e300,
  -1e300,
  '',
  'x',
  'pending',
  'in_progress',
  'bogus',
  true,
  false,
  [],
  [''],
  ['a', 3],
  [{}],
  {},
  { a: 1 },
];

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
  read_image: { path: 'shot.png' },
  task: { description: 'find tests', prompt: 'List the test files', subagent_type: 'explore', model: 'gpt-4.1' },
  skill: { name: 'release' },
  apply_patch: { input: '*** Begin Patch\n*** Delete File: a\n*** End Patch' },
  insert_text: { path: 'a.txt', insert_line: 0, text: 'x' },
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

describe('the built-in tools’ input schemas', () => {
  it('send providers exactly the JSON Schemas zod generates from the tools’ zod schemas (run `npm run build && node dist/scripts/gen-tool-schemas.js`)', () => {
    const fresh = Object.fromEntries(
      Object.entries(TOOL_INPUT_SCHEMAS).map(([name, schema]) => [name, toJsonSchema(schema)]),
    );
    expect(JSON.stringify(INPUT_JSON_SCHEMAS)).toBe(JSON.stringify(fresh));
  });

  it('gives every built-in tool its generated JSON Schema, as providers are sent it (those reached through a native shape too)', () => {
    // `task` is built in for runs that may start child sessions, `skill` for runs with skills.
    const children = {
      agents: [],
      canStart: true,
      run: () => Promise.resolve({ status: 'failed' as const, cause: 'INTERNAL_ERROR' as const, message: 'not run' }),
    };
    const skills = {
      skills: [
        {
          name: 'release',
          description: 'cut a release',
          dir: '/s/release',
          file: '/s/release/SKILL.md',
          scope: 'user' as const,
        },
      ],
      problems: [],
    };
    const registry = createToolRegistry({ children, skills });
    expect([...registry.tools.keys()].sort()).toEqual(Object.keys(INPUT_JSON_SCHEMAS).sort());
    for (const tool of registry.tools.values()) expect(tool.jsonSchema).toBe(INPUT_JSON_SCHEMAS[tool.name]);
  });

  const ajv = new Ajv({ strict: false });
  for (const [name, zodSchema] of Object.entries(TOOL_INPUT_SCHEMAS)) {
    it(`accept and reject ${name} inputs in zod as in the JSON Schema providers are sent`, () => {
      const validate = ajv.compile(INPUT_JSON_SCHEMAS[name]!);
      const cases = corpus(VALID[name]!).map((value) =>
        value === undefined ? value : JSON.parse(JSON.stringify(value)),
      );
      expect(cases.length).toBeGreaterThan(30);
      for (const value of cases)
        expect(zodSchema.safeParse(value).success, JSON.stringify(value)).toBe(validate(value));
    });
  }
});

describe('invalid tool arguments', () => {
  const registry = createToolRegistry();
  const ctx = {} as ToolContext;
  const message = async (name: string, input: unknown): Promise<string | undefined> => {
    const outcome = await registry.invoke(name, JSON.stringify(input), ctx);
    expect(outcome).toMatchObject({ status: 'failed', cause: 'MODEL_ERROR' });
    return outcome.status === 'failed' ? outcome.message : undefined;
  };

  it('name each field and say what was expected, in one sentence', async () => {
    expect(await message('read_file', { offset: '2', limit: 1.5 })).toBe(
      'invalid arguments for read_file: "path" is required (a string); "offset" must be a number, not a string; "limit" must be an integer, not a number',
    );
    expect(await message('bash', { command: '', timeout_ms: 600_001 })).toBe(
      'invalid arguments for bash: "command" must not be empty; "timeout_ms" must be at most 600000',
    );
    expect(await message('git_commit', { message: 'm', paths: ['a', 3] })).toBe(
      'invalid arguments for git_commit: "paths.1" must be a string, not an integer',
    );
    expect(await message('update_plan', { plan: [] })).toBe(
      'invalid arguments for update_plan: "plan" must have at least 1 item',
    );
    expect(await message('update_plan', { plan: [{ step: 'a', status: 'done' }] })).toBe(
      'invalid arguments for update_plan: "plan.0.status" must be one of "pending", "in_progress", "completed"',
    );
    expect(await message('ask_user', ['which?'])).toBe(
      'invalid arguments for ask_user: the input must be an object, not an array',
    );
  });

  it('refuse a plan with two steps in progress, naming the plan', async () => {
    const plan = [
      { step: 'a', status: 'in_progress' },
      { step: 'b', status: 'in_progress' },
    ];
    expect(TOOL_INPUT_SCHEMAS.update_plan.safeParse({ plan: plan.slice(0, 1) }).success).toBe(true);
    expect(await message('update_plan', { plan })).toBe(
      'invalid arguments for update_plan: "plan": at most one step may be in_progress',
    );
  });

  it('never quote the value sent', async () => {
    const secret = 'sk-ant-api03-' + 'x'.repeat(40);
    expect(await message('read_file', { path: [secret] })).not.toContain(secret);
  });
});
