/**
 * The images a chat message carries: `@path` words naming image files (by extension or by their
 * bytes) and image paths pasted into the prompt, read and typed from their bytes; what cannot go
 * is said, and an image `@path` is not also attached as a text file. Real files in a temp dir.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { attachImages, pastedImagePaths } from '../../lib/chat/image-attachments.js';
import { createPromptExtras } from '../../lib/chat/prompt-extras.js';
import { jpeg, png } from '../helpers/images.js';

function workspace(): { cwd: string; outside: string } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-chat-images-')));
  const cwd = path.join(root, 'project');
  const outside = path.join(root, 'My Pictures');
  fs.mkdirSync(cwd);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(cwd, 'shot.png'), png(4, 3));
  fs.writeFileSync(path.join(cwd, 'photo.dat'), jpeg(40, 30));
  fs.writeFileSync(path.join(cwd, 'notes.png'), 'just text\n');
  fs.writeFileSync(path.join(cwd, 'README.md'), '# Readme\n');
  fs.writeFileSync(path.join(outside, 'screen shot.png'), png(8, 6));
  return { cwd, outside };
}

describe('chat images', () => {
  it('finds pasted image paths bare, quoted, with escaped spaces, as ~/ and file:// paths, and nothing in plain prose', () => {
    expect(pastedImagePaths('look at \'/tmp/My Pictures/a b.png\' and "/tmp/c d.jpg"')).toEqual([
      '/tmp/My Pictures/a b.png',
      '/tmp/c d.jpg',
    ]);
    expect(pastedImagePaths('here /tmp/x.webp and /tmp/My\\ Pictures/y.gif now')).toEqual([
      '/tmp/x.webp',
      '/tmp/My Pictures/y.gif',
    ]);
    expect(pastedImagePaths('~/shots/z.jpeg and file:///tmp/w.png')).toEqual(['~/shots/z.jpeg', 'file:///tmp/w.png']);
    expect(pastedImagePaths('the logo.png in the repo, and /usr/bin/node')).toEqual([]);
  });

  it('attaches @paths by extension or by bytes and pasted paths outside the workspace, each typed from its bytes', () => {
    const { cwd, outside } = workspace();
    const got = attachImages(`@shot.png and @photo.dat and @README.md and '${outside}/screen shot.png'`, cwd);
    expect(got.images.map((i) => [i.name, i.mediaType, i.width, i.height])).toEqual([
      ['shot.png', 'image/png', 4, 3],
      ['photo.dat', 'image/jpeg', 40, 30],
      ['screen shot.png', 'image/png', 8, 6],
    ]);
    expect(got.words).toEqual(['shot.png', 'photo.dat', `${outside}/screen shot.png`]);
    expect(got.skipped).toEqual([]);
  });

  it('says why an image path was not attached: text named .png, a pasted path to no file; the same image twice goes once', () => {
    const { cwd } = workspace();
    const got = attachImages('@notes.png @shot.png @./shot.png /nowhere/gone.png', cwd);
    expect(got.images.map((i) => i.name)).toEqual(['shot.png']);
    expect(got.skipped).toEqual([
      { path: 'notes.png', reason: expect.stringMatching(/not a PNG, JPEG, GIF or WebP image/) },
      { path: '/nowhere/gone.png', reason: 'no such file' },
    ]);
  });

  it('sends the images beside the prompt, not as file blocks, and keeps text files as blocks', async () => {
    const { cwd } = workspace();
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-chat-home-'));
    const extras = createPromptExtras({ cwd, env: { MINICODE_HOME: home, HOME: home } });
    const { prompt, images, notes } = await extras.expand('compare @shot.png with @README.md');
    expect(images.map((i) => i.name)).toEqual(['shot.png']);
    expect(prompt).toContain('<file path="README.md">');
    expect(prompt).not.toContain('<file path="shot.png">');
    expect(notes).toEqual([]);
  });
});
