/**
 * The command line of the A/B tools (ab-pipeline.ts, ab-batch-lines.ts): two build roots, each
 * holding a built dist/, in any position, and valued flags.
 */

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
