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
 * Node's command line or in `NODE_OPTIONS` win: a flag named there is not set again.
 */

/** The flags, in the order they are set. */
export const RUNTIME_V8_FLAGS: readonly string[] = ['--max-bytecode-size-for-early-opt=0', '--interrupt-budget=500000'];

/** The flags of {@link RUNTIME_V8_FLAGS} that neither `execArgv` nor `NODE_OPTIONS` names (those are left as given). */
export function runtimeV8Flags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const given = `${execArgv.join(' ')} ${nodeOptions ?? ''}`.replaceAll('_', '-');
  return RUNTIME_V8_FLAGS.filter((flag) => !given.includes(flag.slice(0, flag.indexOf('='))));
}

/** Set the flags of {@link runtimeV8Flags} on this process's V8; returns them. */
export function applyRuntimeV8Flags(
  v8: { setFlagsFromString(flags: string): void },
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): string[] {
  const flags = runtimeV8Flags(execArgv, nodeOptions);
  for (const flag of flags) v8.setFlagsFromString(flag);
  return flags;
}
