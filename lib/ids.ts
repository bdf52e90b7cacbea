import { randomBytes } from 'node:crypto';
import { MinicodeError } from './errors.js';

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

/**
 * The session id grammar every command checks at its boundary (`ingest --session`, `replay`,
 * `chat --resume`): 1 to 128 characters of `A-Z a-z 0-9 . _ : -`. Generated ids fit it; the
 * grammar keeps control characters, spaces and escape sequences out of the store, the index
 * and every terminal that later lists them.
 */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** `id` when it is a valid session id; else MINICODE_E_SESSION_ID_INVALID naming `where` (a flag or argument). */
export function checkSessionId(id: string, where: string): string {
  if (SESSION_ID_PATTERN.test(id)) return id;
  const shown = id === '' ? 'an empty id' : `"${displayId(id)}"`;
  throw new MinicodeError('MINICODE_E_SESSION_ID_INVALID', `${where}: ${shown} is not a session id`, {
    action: 'a session id is 1 to 128 of A-Z a-z 0-9 . _ : - (see `minicode sessions`)',
  });
}

/** Longest id {@link displayId} shows before cutting it with `…`: 128 characters. */
const DISPLAY_ID_MAX = 128;

/**
 * An id from anywhere (a store written by an older build, an input file) made safe to print:
 * every character outside the session id grammar is shown as `\xNN` or `\u{N}` (a backslash
 * too, so the escaping is unambiguous), and the result is cut at 128 characters. Ids that fit
 * the grammar are returned unchanged.
 */
export function displayId(id: string): string {
  if (SESSION_ID_PATTERN.test(id)) return id;
  const parts: string[] = [];
  let length = 0;
  for (const ch of id) {
    const part = /^[A-Za-z0-9._:-]$/.test(ch) ? ch : escapeChar(ch);
    if (length + part.length > DISPLAY_ID_MAX) {
      parts.push('…');
      break;
    }
    parts.push(part);
    length += part.length;
  }
  return parts.join('');
}

function escapeChar(ch: string): string {
  const code = ch.codePointAt(0) as number;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}
