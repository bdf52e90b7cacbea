/**
 * How the build groups bundle files into packs for the code-cache loader (scripts/bundle-packs.ts),
 * on a small hand-made graph shaped like the CLI's: an entry that imports two commands, which share
 * chunks, and a command whose run imports more after its first line.
 */
import { describe, expect, it } from 'vitest';
import { groupPacks, type PackInput } from '../../scripts/bundle-packs.js';

const file = (deps: string[] = [], dynamic: string[] = [], modules: string[] = []): PackInput => ({ deps, dynamic, modules });

// app -> import() exec | chat; exec and chat share `shared`; exec's `run` imports `store` and `loop`, which share `lmdb`.
const GRAPH: Record<string, PackInput> = {
  app: file(['commander'], ['chat', 'exec']),
  commander: file(),
  chat: file(['shared', 'chatOnly'], [], ['cli/chat-action.ts']),
  chatOnly: file(),
  exec: file(['shared', 'run'], [], ['cli/exec-action.ts']),
  shared: file(),
  run: file([], ['store', 'loop']),
  store: file(['lmdb']),
  loop: file(['lmdb', 'tools']),
  lmdb: file(),
  tools: file(),
  unreached: file(),
};

describe('the packs of the bundle', () => {
  it('puts each file in exactly one pack', () => {
    const packs = groupPacks(GRAPH, 'app', ['cli/exec-action.ts']);
    expect(packs.flat().sort()).toEqual(Object.keys(GRAPH).sort());
  });

  it('gives each load step of the hot path one pack of exactly the files it loads', () => {
    const packs = groupPacks(GRAPH, 'app', ['cli/exec-action.ts']);
    expect(packs).toContainEqual(['app', 'commander']);
    expect(packs).toContainEqual(['exec', 'shared', 'run']);
    expect(packs).toContainEqual(['store', 'lmdb']);
    expect(packs).toContainEqual(['loop', 'tools']);
  });

  it('leaves another command the files the hot path does not load, and its share of the hot packs', () => {
    const packs = groupPacks(GRAPH, 'app', ['cli/exec-action.ts']);
    expect(packs).toContainEqual(['chat', 'chatOnly']);
    expect(packs).toContainEqual(['unreached']);
  });

  it('follows the entry breadth-first when no hot module is named', () => {
    const packs = groupPacks(GRAPH, 'app', []);
    expect(packs.slice(0, 3)).toEqual([
      ['app', 'commander'],
      ['chat', 'shared', 'chatOnly'],
      ['exec', 'run'],
    ]);
  });
});
