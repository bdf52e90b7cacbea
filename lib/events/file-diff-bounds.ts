/**
 * The bounds of a `FileDiff` payload, apart from the zod schemas so that the edit tools (on the
 * exec start-up path) can use them without building the event schemas.
 */

/** Most lines a `FileDiff` carries; the rest is counted in `omitted`. Default 200. */
export const FILE_DIFF_MAX_LINES = 200;
/** Longest diff line kept, in characters (a longer one is cut and ends with `…`). Default 400. */
export const FILE_DIFF_MAX_LINE_CHARS = 400;
