/**
 * Regenerates lib/tools/input-json-schemas.ts, the JSON Schemas providers are sent, from the zod
 * input schemas of the built-in tools (lib/tools/input-schemas.ts):
 * `npm run build && node dist/scripts/gen-tool-schemas.js`. A test keeps the file current.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOOL_INPUT_SCHEMAS, toJsonSchema } from '../lib/tools/input-schemas.js';

/** The text of lib/tools/input-json-schemas.ts. */
export function toolSchemasModule(): string {
  const schemas = Object.fromEntries(
    Object.entries(TOOL_INPUT_SCHEMAS).map(([name, schema]) => [name, toJsonSchema(schema)]),
  );
  return [
    '// Generated from lib/tools/input-schemas.ts by `node dist/scripts/gen-tool-schemas.js`; a test keeps it in step. Do not edit.',
    '',
    "/** The JSON Schema of each built-in tool's input, by tool name, as providers are sent it. */",
    `export const INPUT_JSON_SCHEMAS: Record<string, Record<string, unknown>> = ${JSON.stringify(schemas, null, 2)};`,
    '',
  ].join('\n');
}

const self = fileURLToPath(import.meta.url);
if (process.argv[1] && path.resolve(process.argv[1]) === self) {
  const root = path.resolve(path.dirname(self), '../..');
  const file = path.join(root, 'lib/tools/input-json-schemas.ts');
  fs.writeFileSync(file, toolSchemasModule());
  // Formatted as the committed file is, so a regeneration with no schema change leaves it as it is.
  execFileSync(path.join(root, 'node_modules/.bin/biome'), ['format', '--write', file], { stdio: 'inherit' });
}
