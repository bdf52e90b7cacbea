/**
 * Images a run sends to the model (`exec -i`, a batch line's `images`, ACP image content, the
 * `read_image` tool): read, typed from their bytes, and held to limits every provider accepts.
 * Past a limit an image is refused with a message saying which and by how much, not resized:
 * resizing needs an image codec (a native dependency such as sharp) that minicode does not
 * carry; the user can downscale once, with the tool of their choice.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MinicodeError } from '../errors.js';
import type { StoredImage } from '../events/index.js';
import { sniffImage, type ImageMediaType } from './sniff.js';

/** Limits of one image; defaults {@link DEFAULT_IMAGE_LIMITS}. */
export interface ImageLimits {
  /** Largest file in bytes; default 5 MiB (Anthropic's per-image cap, the smallest of the five). */
  maxBytes: number;
  /** Longest side in pixels; default 8,000 (Anthropic's cap). */
  maxSide: number;
}

/** The defaults of {@link ImageLimits}. */
export const DEFAULT_IMAGE_LIMITS: Readonly<ImageLimits> = Object.freeze({ maxBytes: 5 * 1024 * 1024, maxSide: 8_000 });

/** An image ready for a request: its bytes and what they are. */
export interface ImageAttachment {
  /** The file's base name (what placeholders show). */
  name: string;
  mediaType: ImageMediaType;
  width: number;
  height: number;
  bytes: Uint8Array;
  /** `sha256:<hex>` of the bytes: the content store's key. */
  digest: string;
}

function tooLarge(name: string, size: number, limits: ImageLimits): MinicodeError {
  return new MinicodeError(
    'MINICODE_E_IMAGE',
    `${name}: ${size} bytes is over the ${limits.maxBytes}-byte image limit`,
    {
      action: 'downscale or recompress the image (e.g. to JPEG) below the limit; minicode does not resize images',
    },
  );
}

/** Check image bytes named `name` (refusing with MINICODE_E_IMAGE past a limit or when they are no image). */
export function imageFromBytes(
  bytes: Uint8Array,
  name: string,
  limits: ImageLimits = DEFAULT_IMAGE_LIMITS,
): ImageAttachment {
  if (bytes.length > limits.maxBytes) throw tooLarge(name, bytes.length, limits);
  const sniffed = sniffImage(bytes);
  if (!sniffed) {
    throw new MinicodeError(
      'MINICODE_E_IMAGE',
      `${name}: not a PNG, JPEG, GIF or WebP image (its bytes say so, whatever its name)`,
      {
        action: 'pass an image file in one of those formats',
      },
    );
  }
  if (sniffed.width > limits.maxSide || sniffed.height > limits.maxSide) {
    throw new MinicodeError(
      'MINICODE_E_IMAGE',
      `${name}: ${sniffed.width}x${sniffed.height} pixels is over the ${limits.maxSide}-pixel limit of a side`,
      {
        action: `downscale the image to at most ${limits.maxSide} pixels a side; minicode does not resize images`,
      },
    );
  }
  return { name, ...sniffed, bytes, digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}` };
}

/** Read and check an image file (MINICODE_E_IMAGE when it cannot be read, is no image or is past a limit). */
export function loadImageFile(file: string, limits: ImageLimits = DEFAULT_IMAGE_LIMITS): ImageAttachment {
  const name = path.basename(file);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw new MinicodeError(
      'MINICODE_E_IMAGE',
      `${file}: cannot read the image (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      { action: 'pass an existing image file' },
    );
  }
  if (!stat.isFile())
    throw new MinicodeError('MINICODE_E_IMAGE', `${file}: not a file`, { action: 'pass an image file' });
  // Checked before reading: an oversized file is never loaded whole.
  if (stat.size > limits.maxBytes) throw tooLarge(name, stat.size, limits);
  return imageFromBytes(fs.readFileSync(file), name, limits);
}

/** How an event refers to an image: what it is, and its bytes' content-store reference (the digest is the key). */
export function storedImageOf(image: ImageAttachment): StoredImage {
  return {
    name: image.name,
    mediaType: image.mediaType,
    width: image.width,
    height: image.height,
    content: { ref: image.digest, size: image.bytes.length, mediaType: image.mediaType },
  };
}
