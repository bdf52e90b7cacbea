/**
 * Validation of a built-in tool's input against its JSON Schema (input-json-schemas.ts), with
 * zod's semantics and messages for the part of JSON Schema those schemas use: objects (unknown
 * keys dropped unless `additionalProperties` allows them), strings with `minLength`, integers
 * with `minimum`/`maximum`, booleans, arrays with `minItems`, enums and `{}` (anything). zod
 * itself then stays unloaded for a run that uses only built-in tools; test/tools/input-check.test.ts
 * holds this to zod's own answers. Input comes from `JSON.parse`, so only JSON values are met.
 */
import type { InputIssue, InputSchema } from './types.js';

type Json = Record<string, unknown>;

/** zod's name of the type of `value`, as its messages say it. */
function received(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  return typeof value;
}

const invalidType = (expected: string, value: unknown): string => `Invalid input: expected ${expected}, received ${received(value)}`;

/** Check `value` against `schema`; pushes issues; returns the parsed value (objects rebuilt as zod rebuilds them). */
function check(schema: Json, value: unknown, path: (string | number)[], issues: InputIssue[]): unknown {
  if (Array.isArray(schema.enum)) {
    if (!schema.enum.includes(value)) issues.push({ path, message: `Invalid option: expected one of ${schema.enum.map((v) => JSON.stringify(v)).join('|')}` });
    return value;
  }
  switch (schema.type) {
    case undefined:
      return value;
    case 'string':
      if (typeof value !== 'string') issues.push({ path, message: invalidType('string', value) });
      checkLength(schema.minLength, value, path, issues);
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') issues.push({ path, message: invalidType('boolean', value) });
      return value;
    case 'number':
    case 'integer':
      return checkNumber(schema, value, path, issues);
    case 'array': {
      if (!Array.isArray(value)) issues.push({ path, message: invalidType('array', value) });
      checkLength(schema.minItems, value, path, issues);
      if (!Array.isArray(value)) return value;
      const items = (schema.items ?? {}) as Json;
      return value.map((item, i) => check(items, item, [...path, i], issues));
    }
    case 'object':
      return checkObject(schema, value, path, issues);
    default:
      throw new Error(`input-check: JSON Schema type ${String(schema.type)} is not supported`);
  }
}

/**
 * A minimum length, checked as zod checks it: on anything that has a length, even after a
 * type mismatch (`[]` for a string of at least one character gets both issues).
 */
function checkLength(min: unknown, value: unknown, path: (string | number)[], issues: InputIssue[]): void {
  if (typeof min !== 'number') return;
  if (typeof value === 'string' && value.length < min) issues.push({ path, message: `Too small: expected string to have >=${min} characters` });
  else if (Array.isArray(value) && value.length < min) issues.push({ path, message: `Too small: expected array to have >=${min} items` });
}

function checkNumber(schema: Json, value: unknown, path: (string | number)[], issues: InputIssue[]): unknown {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    issues.push({ path, message: invalidType('number', value) });
    return value;
  }
  if (schema.type === 'integer') {
    // zod stops at a fraction, but goes on past an integer beyond the safe range.
    if (!Number.isInteger(value)) {
      issues.push({ path, message: 'Invalid input: expected int, received number' });
      return value;
    }
    if (value > Number.MAX_SAFE_INTEGER) issues.push({ path, message: `Too big: expected int to be <${Number.MAX_SAFE_INTEGER}` });
    else if (value < Number.MIN_SAFE_INTEGER) issues.push({ path, message: `Too small: expected int to be >${Number.MIN_SAFE_INTEGER}` });
  }
  // The integer schemas carry the safe range as minimum/maximum too: those bounds are the check above.
  const min = schema.minimum;
  const max = schema.maximum;
  if (typeof min === 'number' && min !== Number.MIN_SAFE_INTEGER && value < min) issues.push({ path, message: `Too small: expected number to be >=${min}` });
  if (typeof max === 'number' && max !== Number.MAX_SAFE_INTEGER && value > max) issues.push({ path, message: `Too big: expected number to be <=${max}` });
  return value;
}

function checkObject(schema: Json, value: unknown, path: (string | number)[], issues: InputIssue[]): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.push({ path, message: invalidType('object', value) });
    return value;
  }
  const input = value as Json;
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = (schema.required ?? []) as string[];
  const out: Json = {};
  for (const [key, property] of Object.entries(properties)) {
    if (input[key] === undefined && !required.includes(key)) continue;
    out[key] = check(property, input[key], [...path, key], issues);
  }
  // `additionalProperties: {}` is zod's catchall(unknown): other keys are kept, after the known ones.
  if (schema.additionalProperties !== undefined) for (const key of Object.keys(input)) if (!(key in properties)) out[key] = input[key];
  return out;
}

/**
 * The validator of a tool's input: `json` is its JSON Schema; `refine` checks what JSON Schema
 * cannot say (it runs on a value that passed the schema and returns the issues it finds).
 */
export function inputSchemaOf<T>(json: Record<string, unknown>, refine?: (value: T) => InputIssue[]): InputSchema<T> {
  return {
    safeParse(value) {
      const issues: InputIssue[] = [];
      const data = check(json, value, [], issues) as T;
      if (issues.length === 0 && refine) issues.push(...refine(data));
      return issues.length === 0 ? { success: true, data } : { success: false, error: { issues } };
    },
  };
}
