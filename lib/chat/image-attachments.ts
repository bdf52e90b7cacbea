/**
 * The images a chat message carries: the `@path` words that name an image file, and image file
 * paths pasted or dropped into the prompt (a terminal pastes a dragged file as its path, quoted
 * or with its spaces escaped). Each is read and typed from its bytes by lib/images (a `.png`
 * holding text is not an image; one over the limits is refused with its reason), and goes with
 * the message as an image, not as text: the prompt keeps the words as typed, the images travel
 * beside it (the TTY and replay show a placeholder line per image).
 *
 * The person typed the path, so an image outside the workspace (a screenshot in ~/Pictures) is
 * attached too; a pasted path counts only when it is absolute (or `~/`, `file://`), ends in an
 * image extension and names an existing file, so that prose mentioning `logo.png` attaches nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MinicodeError } from '../errors.js';
import { loadImageFile, type ImageAttachment } from '../images/load.js';
import { sniffImage } from '../images/sniff.js';
import { atPaths } from './attachments.js';
import { dropExpected } from '../debug.js';

/** Most images attached to one message; default 20 (what the smallest provider limit per request allows comfortably). */
export const MAX_ATTACHED_IMAGES = 20;

const IMAGE_EXTENSION = /\.(png|jpe?g|gif|webp)$/i;

/** The result of {@link attachImages}. */
export interface AttachedImages {
  images: ImageAttachment[];
  /** The words attached as images (an `@path` among them is not also attached as a text file). */
  words: string[];
  /** Words that looked like images but were not attached, with why. */
  skipped: { path: string; reason: string }[];
}

/** `~/x` and `file:///x` as plain paths; other words as they are. */
function plainPath(word: string, home: string): string {
  if (word.startsWith('file://')) {
    try {
      return decodeURIComponent(new URL(word).pathname);
    } catch {
      // Not a URL after all: taken as it was written.
      return word;
    }
  }
  if (word === '~' || word.startsWith('~/')) return path.join(home, word.slice(1));
  return word;
}

/**
 * Paths pasted into `text` that may be image files: absolute, `~/` or `file://` paths ending in
 * an image extension, bare, in quotes ('…' or "…", as terminals quote a dropped file with
 * spaces) or with backslash-escaped spaces. An `@path` is not one (see {@link atPaths}).
 */
export function pastedImagePaths(text: string): string[] {
  const out: string[] = [];
  const push = (p: string): void => {
    if (IMAGE_EXTENSION.test(p) && !out.includes(p)) out.push(p);
  };
  for (const m of text.matchAll(/(['"])((?:\/|~\/|file:\/\/)[^'"\n]+)\1/g)) push(m[2]!);
  for (const m of text.matchAll(/(?:^|\s)((?:\/|~\/|file:\/\/)(?:\\ |[^\s'"])+)/g)) push(m[1]!.replace(/\\ /g, ' '));
  return out;
}

/** Read one candidate: an image, or why not; undefined when the word names no file (it stays text). */
function readCandidate(file: string): ImageAttachment | { reason: string } | undefined {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile()) return undefined;
  try {
    return loadImageFile(file);
  } catch (error) {
    if (error instanceof MinicodeError && error.code === 'MINICODE_E_IMAGE') return { reason: error.message };
    throw error;
  }
}

/** Whether the first bytes of `file` are an image's (a `@path` without an image extension may still be one). */
function startsLikeImage(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const head = Buffer.alloc(4096);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    return sniffImage(head.subarray(0, n)) !== undefined;
  } catch (error) {
    // Unreadable: not attached as an image; the text attachment says why.
    dropExpected('image attachment: reading its first bytes', error, 'ENOENT', 'ENOTDIR', 'EISDIR', 'EACCES');
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Attach the images `text` names (`@path` relative to `cwd`, or pasted paths). */
export function attachImages(
  text: string,
  cwd: string,
  options: { home?: string | undefined; maxImages?: number | undefined } = {},
): AttachedImages {
  const home = options.home ?? os.homedir();
  const max = options.maxImages ?? MAX_ATTACHED_IMAGES;
  const images: ImageAttachment[] = [];
  const words: string[] = [];
  const skipped: AttachedImages['skipped'] = [];
  const candidates = [
    ...atPaths(text).map((word) => ({ word, at: true })),
    ...pastedImagePaths(text).map((word) => ({ word, at: false })),
  ];
  for (const { word, at } of candidates) {
    const file = path.resolve(cwd, plainPath(word, home));
    // An `@path` is an image by its extension or its bytes; anything else is a text attachment's.
    if (
      at &&
      !IMAGE_EXTENSION.test(word) &&
      !(fs.statSync(file, { throwIfNoEntry: false })?.isFile() && startsLikeImage(file))
    )
      continue;
    const read = readCandidate(file);
    if (read === undefined) {
      if (at) continue;
      skipped.push({ path: word, reason: 'no such file' });
      continue;
    }
    words.push(word);
    if ('reason' in read) {
      skipped.push({ path: word, reason: read.reason });
      continue;
    }
    if (images.some((i) => i.digest === read.digest)) continue;
    if (images.length >= max) {
      skipped.push({ path: word, reason: `over the ${max} images a message may attach` });
      continue;
    }
    images.push(read);
  }
  return { images, words, skipped };
}
