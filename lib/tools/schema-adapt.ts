/**
 * A JSON Schema given to us (an MCP server's tool input, a user's `--output-schema`) in the
 * shape every provider accepts for a tool's input: an object schema at the root, with
 * `properties` present, without `$schema` (OpenAI and Gemini reject or ignore it) and without
 * root combinators (`anyOf`/`oneOf`/`allOf`/`not`/`if`: Anthropic and OpenAI refuse a tool whose
 * root is not plainly an object). What is dropped only loosens the schema the model sees; where
 * minicode validates the input itself (submit_result), it validates against the full schema.
 * Per-format rewrites beyond this (Gemini's OpenAPI subset) are the request builder's.
 */

const ROOT_ONLY_DROPPED = new Set(['$schema', 'anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else']);

/** The provider-facing copy of a tool input schema. */
export function adaptInputSchema(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema ?? {})) if (!ROOT_ONLY_DROPPED.has(key)) rest[key] = value;
  return { ...rest, type: 'object', properties: (rest.properties as Record<string, unknown> | undefined) ?? {} };
}
