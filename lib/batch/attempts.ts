/**
 * A line's attempts: with `--epochs N` (or a line's `epochs`) each line runs N times, each
 * attempt its own session and record, finished once per (id, attempt). Everything that keys a
 * run (the output's resume, the store's copy of a record, a queue job, a workspace, a patch
 * file) keys it by {@link runKey}: the id alone for attempt 1, so an output written before
 * epochs existed resumes unchanged, and the id with its attempt number otherwise.
 */

/** How many times each line runs; filled once where the batch is set up. */
export interface AttemptOptions {
  /** Runs of each line without its own `epochs`; default 1. */
  epochs: number;
  /** Transient failures retried per attempt (lib/batch/retries.ts); default {@link DEFAULT_RETRIES}. */
  retries: number;
  /** The first retry's wait in ms, doubled for each further one; default {@link DEFAULT_RETRY_BACKOFF_MS}. */
  retryBackoffMs: number;
}

/** Default `--retries`. */
export const DEFAULT_RETRIES = 2;
/** Default first wait before a retry (2 s, then 4 s, 8 s, ...). */
export const DEFAULT_RETRY_BACKOFF_MS = 2000;
/** Most retries of one run `--retries` may ask for. */
export const MAX_RETRIES = 10;
/** Most epochs a batch or a line may ask for. */
export const MAX_EPOCHS = 1000;

/** {@link AttemptOptions} with the defaults filled. */
export function attemptOptions(given: Partial<AttemptOptions> = {}): AttemptOptions {
  return { epochs: 1, retries: DEFAULT_RETRIES, retryBackoffMs: DEFAULT_RETRY_BACKOFF_MS, ...given };
}

/**
 * The key of one run: the id for attempt 1, else the id, a NUL and the attempt. Input ids never
 * hold a NUL (input.ts refuses one), so no id can be mistaken for another id's later attempt.
 */
export function runKey(run: { id: string; attempt?: number | undefined }): string {
  return run.attempt !== undefined && run.attempt > 1 ? `${run.id}\u0000${run.attempt}` : run.id;
}

/** The attempt number of a run or record (records written before epochs existed are attempt 1). */
export function attemptOf(run: { attempt?: number | undefined }): number {
  return run.attempt ?? 1;
}

/**
 * Every run of a batch: each line once per epoch (its own `epochs`, else `epochs`), epoch by
 * epoch, so that a batch stopped early has whole epochs rather than some lines run N times and
 * others not at all.
 */
export function expandAttempts<Line extends { epochs?: number | undefined; attempt?: number | undefined }>(
  lines: readonly Line[],
  epochs: number,
): Line[] {
  const counts = lines.map((l) => l.epochs ?? epochs);
  const most = Math.max(0, ...counts);
  const runs: Line[] = [];
  for (let attempt = 1; attempt <= most; attempt++) {
    lines.forEach((line, i) => {
      if (attempt <= counts[i]!) runs.push({ ...line, attempt });
    });
  }
  return runs;
}
