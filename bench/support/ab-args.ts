/**
 * The command lines of the bench's small tools: the A/B tools (ab-pipeline.ts, ab-batch-lines.ts:
 * two build roots, each holding a built dist/, in any position, and valued flags) and the
 * processes bench/pipeline.ts measures beside `ingest` (ingest-floor.ts, ingest-peer.ts).
 */

/** A flag's value (the argument after it), else undefined. */
export function flagValue(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
}

/** A numeric flag's value, else `fallback`. */
export function option(args: readonly string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}

/** The two roots: the arguments that are neither a flag nor the value of one of `valued`. */
export function abRoots(args: readonly string[], valued: readonly string[], usage: string): [string, string] {
  const roots = args.filter((a, i) => !a.startsWith('--') && !valued.includes(args[i - 1] ?? ''));
  if (roots.length !== 2) throw new Error(`usage: ${usage}`);
  return [roots[0] as string, roots[1] as string];
}

/** The median of a sample (the upper one of an even count). */
export const median = (a: readonly number[]): number => [...a].sort((x, y) => x - y)[a.length >> 1] as number;
