/** The wire schema name every envelope carries (its own module: the exec path needs it without the zod enums beside it). */
export const SCHEMA_NAME = 'minicode.output.v1' as const;

/** The schema of `batch`'s summary (`summary.json`, and the last line of `batch --json`). */
export const BATCH_SUMMARY_SCHEMA = 'minicode.batch.summary.v1' as const;
