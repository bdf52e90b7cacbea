/**
 * A typed result's schema (`--output-schema FILE`, a batch line's `outputSchema`): a JSON Schema
 * of draft 2020-12 (the default when `$schema` is absent), 2019-09 or draft-07, compiled once with
 * ajv and used twice: adapted, as `submit_result`'s input schema (what the model sees), and whole,
 * to validate what the model submits. The root must describe a JSON object: every provider takes
 * a tool's input as an object.
 *
 * ajv loads only here, and this module only when a run has a schema.
 */
import fs from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { MinicodeError } from '../errors.js';
import { sha256Of } from '../instructions/load.js';
import { adaptInputSchema } from '../tools/schema-adapt.js';

/** The largest schema file read (1 MiB): a schema is hand-written or generated, never data. */
export const MAX_SCHEMA_BYTES = 1024 * 1024;
/** The most validation errors shown to the model at once. */
const MAX_ERRORS_SHOWN = 20;

/** A compiled output schema. */
export interface OutputSchema {
  /** The schema as given: what results are validated against. */
  schema: Record<string, unknown>;
  /** `submit_result`'s provider-facing input schema (see tools/schema-adapt.ts). */
  toolSchema: Record<string, unknown>;
  /** `sha256:<hex>` of the schema's JSON text as given. */
  digest: string;
  /** Where it came from, for messages (`--output-schema s.json`, `line 3`). */
  source: string;
  /** Check a submitted result; the errors are one line each, `path: message`. */
  validate(value: unknown): { ok: true } | { ok: false; errors: string[] };
}

type Draft = '2020-12' | '2019-09' | 'draft-07';

/** The draft a `$schema` names; absent means 2020-12. */
function draftOf(uri: unknown, source: string): Draft {
  if (uri === undefined) return '2020-12';
  const s = String(uri);
  if (/draft\/2020-12\/schema/.test(s)) return '2020-12';
  if (/draft\/2019-09\/schema/.test(s)) return '2019-09';
  if (/draft-0[67]\/schema/.test(s)) return 'draft-07';
  throw invalid(
    source,
    `$schema ${JSON.stringify(s).slice(0, 120)} is not a supported draft (2020-12, 2019-09, draft-07)`,
  );
}

function invalid(source: string, reason: string): MinicodeError {
  return new MinicodeError('MINICODE_E_OUTPUT_SCHEMA', `${source}: ${reason}`, {
    action: 'give a JSON Schema (draft 2020-12 or draft-07) whose root is {"type": "object", ...}',
  });
}

/** One ajv error as a line the model can act on. */
function errorLine(e: ErrorObject): string {
  const where = e.instancePath === '' ? '(root)' : e.instancePath;
  const extra =
    e.keyword === 'additionalProperties'
      ? ` (${String((e.params as { additionalProperty?: unknown }).additionalProperty)})`
      : e.keyword === 'enum'
        ? ` (${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)})`
        : '';
  return `${where}: ${e.message ?? e.keyword}${extra}`;
}

/** Compile a parsed schema (a MinicodeError `MINICODE_E_OUTPUT_SCHEMA` when it is not a usable one). */
export function compileOutputSchema(raw: unknown, source: string): OutputSchema {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalid(source, 'not a JSON object');
  const schema = raw as Record<string, unknown>;
  const type = schema.type;
  const isObject =
    type === 'object' ||
    (type === undefined && schema.properties !== undefined) ||
    (Array.isArray(type) && type.length === 1 && type[0] === 'object');
  if (!isObject) throw invalid(source, 'the root must describe a JSON object ("type": "object")');
  const draft = draftOf(schema.$schema, source);
  // Not strict: real schemas carry keywords of their own (x-*, title in odd places); unknown
  // formats are known here through ajv-formats. allErrors: the model fixes everything at once.
  const options = { strict: false, allErrors: true } as const;
  const ajv =
    draft === '2020-12' ? new Ajv2020(options) : draft === '2019-09' ? new Ajv2019(options) : new Ajv(options);
  addFormats.default(ajv);
  let check: ValidateFunction;
  try {
    check = ajv.compile(schema);
  } catch (error) {
    throw invalid(source, (error as Error).message);
  }
  return {
    schema,
    toolSchema: adaptInputSchema(schema),
    digest: sha256Of(JSON.stringify(schema)),
    source,
    validate(value) {
      if (check(value)) return { ok: true };
      const errors = (check.errors ?? []).map(errorLine);
      const shown = errors.slice(0, MAX_ERRORS_SHOWN);
      if (errors.length > shown.length) shown.push(`... and ${errors.length - shown.length} more`);
      return { ok: false, errors: shown };
    },
  };
}

/** Read and compile `--output-schema FILE`. */
export function loadOutputSchemaFile(file: string): OutputSchema {
  const source = `--output-schema ${file}`;
  let text: string;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) throw invalid(source, 'not a file');
    if (stat.size > MAX_SCHEMA_BYTES) throw invalid(source, `larger than ${MAX_SCHEMA_BYTES} bytes`);
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof MinicodeError) throw error;
    throw new MinicodeError(
      'MINICODE_E_INPUT_UNREADABLE',
      `${source}: cannot read it: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      {
        action: 'pass --output-schema a readable JSON Schema file',
      },
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw invalid(source, `not valid JSON: ${(error as Error).message}`);
  }
  return compileOutputSchema(raw, source);
}
