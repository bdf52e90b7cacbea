import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { sourceFiles } from '../helpers/files.js';

/** A static import or re-export of a relative module, type-only ones included (`import type`, `export … from`). */
const STATIC_IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s+'(\.{1,2}\/[^']+)'/gm;

/** Each source file's static relative imports, as repository paths of `.ts` files. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of ['lib', 'cli', 'workers', 'scripts'].flatMap(sourceFiles)) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    const targets = [...text.matchAll(STATIC_IMPORT)].map(([, specifier]) =>
      path.join(path.dirname(file), specifier!).replace(/\.js$/, '.ts'),
    );
    graph.set(file, targets);
  }
  return graph;
}

/** One cycle of the graph, as the files along it, or undefined when it has none. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'done') return undefined;
    if (state.get(file) === 'open') return [...trail.slice(trail.indexOf(file)), file];
    state.set(file, 'open');
    trail.push(file);
    for (const next of graph.get(file) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    trail.pop();
    state.set(file, 'done');
    return undefined;
  };
  for (const file of graph.keys()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('the product modules', () => {
  it('import one another one way: no circle, type-only imports included (lazy import() calls aside)', () => {
    expect(findCycle(importGraph())).toBeUndefined();
  });
});
