/**
 * Image type and dimensions read from the bytes themselves, never from a file name or a
 * declared type: a `.png` that holds a JPEG is sent as the JPEG it is, and bytes that are no
 * image of the four kinds every provider accepts (PNG, JPEG, GIF, WebP) are refused. Only the
 * headers are read: a truncated or corrupt header is "not an image", never a throw.
 */

/** The image types all five provider formats accept. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/** What the bytes are. */
export interface SniffedImage {
  mediaType: ImageMediaType;
  width: number;
  height: number;
}

const ascii = (bytes: Uint8Array, at: number, text: string): boolean => {
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
};
const u16be = (b: Uint8Array, at: number): number => ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
const u16le = (b: Uint8Array, at: number): number => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const u24le = (b: Uint8Array, at: number): number => u16le(b, at) | ((b[at + 2] ?? 0) << 16);
const u32be = (b: Uint8Array, at: number): number =>
  ((b[at] ?? 0) * 0x1000000 + (u16be(b, at + 1) << 8)) | (b[at + 3] ?? 0);

/** PNG: the signature, then the IHDR chunk's width and height. */
function png(b: Uint8Array): SniffedImage | undefined {
  if (b.length < 24 || !(b[0] === 0x89 && ascii(b, 1, 'PNG\r\n\x1a\n') && ascii(b, 12, 'IHDR'))) return undefined;
  return { mediaType: 'image/png', width: u32be(b, 16), height: u32be(b, 20) };
}

/** GIF: `GIF87a`/`GIF89a`, then the logical screen's width and height. */
function gif(b: Uint8Array): SniffedImage | undefined {
  if (b.length < 10 || !(ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a'))) return undefined;
  return { mediaType: 'image/gif', width: u16le(b, 6), height: u16le(b, 8) };
}

/** WebP: a RIFF `WEBP` file whose first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended). */
function webp(b: Uint8Array): SniffedImage | undefined {
  if (b.length < 30 || !ascii(b, 0, 'RIFF') || !ascii(b, 8, 'WEBP')) return undefined;
  if (ascii(b, 12, 'VP8 '))
    return { mediaType: 'image/webp', width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
  if (ascii(b, 12, 'VP8L')) {
    const bits = (b[21] ?? 0) | ((b[22] ?? 0) << 8) | ((b[23] ?? 0) << 16) | ((b[24] ?? 0) << 24);
    return { mediaType: 'image/webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (ascii(b, 12, 'VP8X')) return { mediaType: 'image/webp', width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
  return undefined;
}

/** JPEG: SOI, then segments up to the first start-of-frame marker, which holds the dimensions. */
function jpeg(b: Uint8Array): SniffedImage | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    // Start of frame: C0-CF except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { mediaType: 'image/jpeg', height: u16be(b, at + 5), width: u16be(b, at + 7) };
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2;
      continue;
    }
    at += 2 + u16be(b, at + 2);
  }
  return undefined;
}

/** The image the bytes hold, or undefined when they are none of PNG, JPEG, GIF, WebP (or their header is cut). */
export function sniffImage(bytes: Uint8Array): SniffedImage | undefined {
  const found = png(bytes) ?? jpeg(bytes) ?? gif(bytes) ?? webp(bytes);
  return found && found.width > 0 && found.height > 0 ? found : undefined;
}
