/** The wire schema name every envelope carries (its own module: the exec path needs it without the zod enums beside it). */
export const SCHEMA_NAME = 'minicode.output.v1' as const;
