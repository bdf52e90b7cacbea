import { randomBytes } from 'node:crypto';

/** Injected source of random bytes (tests pass a seeded one). Default `crypto.randomBytes`. */
export type RandomSource = (bytes: number) => Uint8Array;

/**
 * A new session id: `ses_<time base36>_<8 hex>`. Time-sortable, so `minicode sessions` lists
 * in start order; the random part keeps concurrent batch runs apart.
 */
export function newSessionId(now: number = Date.now(), random: RandomSource = randomBytes): string {
  const rand = Buffer.from(random(4)).toString('hex');
  return `ses_${now.toString(36).padStart(9, '0')}_${rand}`;
}
