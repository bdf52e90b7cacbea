/**
 * Which bundle files share one script file (a pack) for the code-cache loader (cli/code-cache.ts).
 * esbuild splits the bundle into a chunk per set of entry points and dynamic imports that reach
 * the same code, so one `import()` can load thirty small files; each is a file read, a cache
 * read and a `vm.Script` of its own. A pack holds the files one load step brings in, so that the
 * step reads two files instead; its members still run one by one, when first required, so
 * what runs and in which order does not change, only what is read and deserialised together.
 *
 * A load step is the entry, or an `import()` of bundle file D from bundle file I: it loads the
 * static closure of D less that of I (already loaded while I runs). Each file goes to the
 * first step that loads it, in breadth-first order from the entry, taking first the steps of
 * the hot path (the `import()` of a file holding one of `hot`'s modules, from the entry, and every
 * step reachable from it), then the others. So the hot path reads no file it does not run,
 * while another command may read (not run) a few files of the hot path's packs that it shares.
 */

/** One bundle file as the grouping sees it (keys are paths relative to dist/). */
export interface PackInput {
  /** Bundle files this one imports statically. */
  deps: readonly string[];
  /** Bundle files this one imports through `import()`. */
  dynamic: readonly string[];
  /** The source modules it holds (esbuild's metafile inputs), to find the hot path's files. */
  modules: readonly string[];
}

/** Group `files` into packs: each pack's member keys (its step's closure order); every file is in exactly one. */
export function groupPacks(files: Readonly<Record<string, PackInput>>, entry: string, hot: readonly string[]): string[][] {
  const closures = new Map<string, Set<string>>();
  const closure = (key: string): Set<string> => {
    let found = closures.get(key);
    if (found) return found;
    found = new Set();
    const walk = (k: string): void => {
      if (found!.has(k) || !files[k]) return;
      found!.add(k);
      for (const dep of files[k]!.deps) walk(dep);
    };
    walk(key);
    closures.set(key, found);
    return found;
  };
  const owner = new Set<string>();
  const packs: string[][] = [];
  const isHot = (key: string): boolean => files[key]!.modules.some((m) => hot.includes(m));
  const breadthFirst = (follow: (target: string, importer: string) => boolean): void => {
    const queue: Array<[string, string | undefined]> = [[entry, undefined]];
    const seen = new Set<string>();
    for (let i = 0; i < queue.length; i++) {
      const [target, importer] = queue[i]!;
      const step = `${importer ?? ''}\0${target}`;
      if (seen.has(step)) continue;
      seen.add(step);
      const loaded = importer === undefined ? new Set<string>() : closure(importer);
      const fresh = [...closure(target)].filter((k) => !loaded.has(k));
      const mine = fresh.filter((k) => !owner.has(k));
      for (const k of mine) owner.add(k);
      if (mine.length > 0) packs.push(mine);
      for (const k of fresh) for (const d of files[k]!.dynamic) if (files[d] && follow(d, k)) queue.push([d, k]);
    }
  };
  // The hot path: from the entry's files, only into the hot files; from there on, everywhere.
  const start = closure(entry);
  breadthFirst((target, importer) => !start.has(importer) || isHot(target));
  breadthFirst(() => true);
  for (const key of Object.keys(files).sort()) if (!owner.has(key)) packs.push([key]);
  return packs;
}
