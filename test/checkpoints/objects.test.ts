/**
 * The store's own object and index handling, against real git: a commit written without a
 * subprocess is byte for byte the one `git commit-tree` writes, and only a self-contained
 * version-2 index may seed the store.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitBody, isPlainIndex, writeCommit } from '../../lib/checkpoints/objects.js';
import { git, tempDir } from './helpers.js';

describe('checkpoint commits written by minicode itself', () => {
  it('have the id git gives the same commit, and git reads them back', () => {
    const dir = tempDir('minicode-ckpt-objects-');
    git(dir, 'init', '-q', '--bare');
    const tree = git(dir, 'mktree').trim() || '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
    const at = 1_700_000_000_000;
    const id = writeCommit(dir, { tree, message: 'minicode-checkpoint kind=turn', at });
    const parented = writeCommit(dir, { tree, parent: id, message: 'second', at });
    expect(git(dir, 'cat-file', '-t', parented).trim()).toBe('commit');
    expect(git(dir, 'rev-parse', `${parented}^`).trim()).toBe(id);
    expect(git(dir, 'log', '-1', '--format=%s|%an|%ae|%at', id).trim()).toBe('minicode-checkpoint kind=turn|minicode|checkpoints@minicode.invalid|1700000000');
    // The same bytes hashed by git: the id is git's own.
    fs.writeFileSync(path.join(dir, 'body'), commitBody({ tree, message: 'minicode-checkpoint kind=turn', at }));
    expect(git(dir, 'hash-object', '-t', 'commit', path.join(dir, 'body')).trim()).toBe(id);
    expect(git(dir, 'fsck', '--no-dangling').trim()).toBe('');
  });

  it('refuse a tree id that is not SHA-1, so the caller falls back to git', () => {
    const dir = tempDir('minicode-ckpt-objects-');
    expect(() => writeCommit(dir, { tree: 'a'.repeat(64), message: 'x', at: 0 })).toThrow(/SHA-1/);
  });
});

describe('the user index as the seed of a store', () => {
  it('is taken when it is a plain version-2 file, and refused when split or of another version', () => {
    const dir = tempDir('minicode-ckpt-index-');
    git(dir, 'init', '-q');
    fs.writeFileSync(path.join(dir, 'b.txt'), 'b\n');
    git(dir, 'add', '-A');
    // An entry whose name is longer than the 12 bits of an entry's name length (4,095 bytes);
    // no file system holds such a path, the index does.
    const blob = git(dir, 'hash-object', '-w', 'b.txt').trim();
    const deep = Array.from({ length: 21 }, (_, i) => `${i}`.padEnd(200, 'd')).join('/');
    git(dir, 'update-index', '--add', '--cacheinfo', `100644,${blob},${deep}/x.txt`);
    git(dir, 'commit', '-qm', 'one');
    const index = (): Buffer => fs.readFileSync(path.join(dir, '.git', 'index'));
    expect(isPlainIndex(index())).toBe(true);
    git(dir, 'update-index', '--index-version', '4');
    expect(isPlainIndex(index())).toBe(false);
    git(dir, 'update-index', '--index-version', '2');
    expect(isPlainIndex(index())).toBe(true);
    git(dir, 'update-index', '--split-index');
    expect(isPlainIndex(index())).toBe(false);
    expect(isPlainIndex(Buffer.from('not an index at all, not at all'))).toBe(false);
  });
});
