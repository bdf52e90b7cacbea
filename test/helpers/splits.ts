/**
 * Ways to cut one input into chunks, for the "whole, byte by byte, seeded random splits give the
 * same output" tests of every decoder and the scrubber.
 */
import { mulberry32 } from '../../lib/random.js';

/** Pieces of an input of `length` between sorted, deduplicated offsets (empty pieces kept). */
function cutAt<T>(length: number, offsets: readonly number[], slice: (start: number, end: number) => T): T[] {
  const sorted = [...new Set(offsets)].sort((a, b) => a - b);
  const out: T[] = [];
  let prev = 0;
  for (const c of sorted) {
    out.push(slice(prev, c));
    prev = c;
  }
  out.push(slice(prev, length));
  return out;
}

/** Split bytes at the given cut points (taken modulo length + 1). */
export function splitAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  return cutAt(
    bytes.length,
    cuts.map((c) => c % (bytes.length + 1)),
    (start, end) => bytes.subarray(start, end),
  );
}

/** Split text at the given offsets (clamped to 0..length). */
export function splitTextAt(text: string, cuts: readonly number[]): string[] {
  return cutAt(
    text.length,
    cuts.map((c) => Math.max(0, Math.min(text.length, c))),
    (start, end) => text.slice(start, end),
  );
}

/** Every byte as its own chunk. */
export function byteByByte(bytes: Uint8Array): Uint8Array[] {
  return Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
}

/** Split bytes into pieces at seeded pseudo-random sizes 1..max (mulberry32). */
export function randomSplits(bytes: Uint8Array, seed: number, max = 64): Uint8Array[] {
  const rnd = mulberry32(seed);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; ) {
    const n = 1 + Math.floor(rnd() * max);
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}
