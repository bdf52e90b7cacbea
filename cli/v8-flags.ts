/**
 * V8 tiering flags the CLI sets for itself, first thing in the bootstrap, before any code of the
 * bundle compiles (docs/startup.md § The optimising compiler).
 *
 * A short `exec` has no code hot enough to pay for V8's optimising compiler (TurboFan), yet by
 * default a handful of functions reach it within the first few hundred milliseconds (path
 * normalisation, the scrubber's table builder, the context estimator). The first optimisation
 * pages the compiler's code in from the Node binary and fills its zones: about 4 MB of peak RSS
 * and several milliseconds of compile on the background thread, for functions that then run a
 * few more times. With these flags a function is optimised after about seven times as much
 * interpreted work as by default, and a small one no longer on its first budget tick: a long run
 * (`batch`, `chat`, a large `ingest`) still optimises its hot code, milliseconds later.
 *
 * The flags must be set before the bundle compiles: V8 stores a hash of its flags in every code
 * cache entry and refuses an entry made under other flags, so every run sets the same ones at
 * the same point, and the cache folder is keyed by them too (cli/code-cache.ts). Flags given on
 * Node's command line or in `NODE_OPTIONS` win: a flag named there is not set again. They are set
 * on the V8 they were measured on (Node 20's V8 11) only: V8 prints an error on stderr for a flag
 * it does not know, and tiering flags come and go between V8 versions.
 */

/** The flags, in the order they are set. */
export const RUNTIME_V8_FLAGS: readonly string[] = ['--max-bytecode-size-for-early-opt=0', '--interrupt-budget=500000'];

/** The V8 major versions the flags are known to exist in and were measured on. */
const KNOWN_V8_MAJORS: readonly number[] = [11];

/** The flags of {@link RUNTIME_V8_FLAGS} that neither `execArgv` nor `NODE_OPTIONS` names (those are left as given); none on another V8 than {@link KNOWN_V8_MAJORS}. */
export function runtimeV8Flags(execArgv: readonly string[], nodeOptions: string | undefined, v8Version: string = process.versions.v8): string[] {
  if (!KNOWN_V8_MAJORS.includes(Number.parseInt(v8Version, 10))) return [];
  const given = `${execArgv.join(' ')} ${nodeOptions ?? ''}`.replaceAll('_', '-');
  return RUNTIME_V8_FLAGS.filter((flag) => !given.includes(flag.slice(0, flag.indexOf('='))));
}

/** Set the flags of {@link runtimeV8Flags} on this process's V8; returns them. */
export function applyRuntimeV8Flags(
  v8: { setFlagsFromString(flags: string): void },
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
  v8Version: string = process.versions.v8,
): string[] {
  const flags = runtimeV8Flags(execArgv, nodeOptions, v8Version);
  for (const flag of flags) v8.setFlagsFromString(flag);
  return flags;
}
