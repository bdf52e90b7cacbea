/**
 * The sentence a model is sent when its tool arguments fail the tool's zod schema: each issue
 * names the field (its dotted path) and what was expected there, so the next call can be
 * corrected. Only type names and the schema's own bounds are quoted, never the value sent,
 * which may be long or hold anything.
 */
import type { InputIssue } from './types.js';

/** The parts of a zod issue the sentence uses (zod's issue union, read loosely). */
interface Issue extends InputIssue {
  code?: string;
  expected?: string;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  values?: readonly unknown[];
}

const NAMES: Record<string, string> = {
  int: 'an integer',
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
};

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  return NAMES[typeof value] ?? typeof value;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path)
    value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

function bound(issue: Issue, least: boolean): string {
  const n = Number(least ? issue.minimum : issue.maximum);
  const word = least ? 'at least' : 'at most';
  if (issue.origin === 'string') return least && n === 1 ? 'must not be empty' : `must be ${word} ${n} characters long`;
  if (issue.origin === 'array') return `must have ${word} ${n} item${n === 1 ? '' : 's'}`;
  if (issue.inclusive === false) return `must be ${least ? 'greater' : 'less'} than ${n}`;
  return `must be ${word} ${n}`;
}

/** One issue as a clause: `"path" must be a string, not a number`. */
function clause(issue: Issue, input: unknown): string {
  const field = issue.path.length === 0 ? 'the input' : `"${issue.path.map(String).join('.')}"`;
  const expected = NAMES[issue.expected ?? ''] ?? issue.expected;
  switch (issue.code) {
    case 'invalid_type': {
      const value = valueAt(input, issue.path);
      return value === undefined
        ? `${field} is required (${expected})`
        : `${field} must be ${expected}, not ${typeOf(value)}`;
    }
    case 'too_small':
      return `${field} ${bound(issue, true)}`;
    case 'too_big':
      return `${field} ${bound(issue, false)}`;
    case 'invalid_value':
      return `${field} must be one of ${(issue.values ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${field}: ${issue.message}`;
  }
}

/** `invalid arguments for <tool>: <clause>; <clause>` for the issues zod found in `input`. */
export function describeInputIssues(tool: string, issues: readonly InputIssue[], input: unknown): string {
  return `invalid arguments for ${tool}: ${issues.map((issue) => clause(issue, input)).join('; ')}`;
}
