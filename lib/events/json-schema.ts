import { z } from 'zod';
import { OutputEventSchema } from './envelope.js';
import { SCHEMA_NAME } from './enums.js';

/** The JSON Schema (draft 2020-12) of `minicode.output.v1`, generated from the zod source. */
export function outputJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(OutputEventSchema, { target: 'draft-2020-12', io: 'output' }) as Record<
    string,
    unknown
  >;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `https://minicode.dev/schema/${SCHEMA_NAME}.json`,
    title: SCHEMA_NAME,
    description: 'One event of the minicode.output.v1 stream (see docs/event-model.md).',
    ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$schema')),
  };
}
