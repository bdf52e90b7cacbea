/**
 * Regenerates lib/scrub/default-dispatch.ts, the default secret rules' dispatch tables compiled
 * ahead of time (lib/scrub/dispatch.ts), so that a run unpacks them instead of compiling them:
 * `npm run build && node dist/scripts/gen-scrub-dispatch.js`. A test keeps the file current.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packDispatch } from '../lib/scrub/dispatch.js';
import { DEFAULT_RULES } from '../lib/scrub/secret-rules.js';

/** The text of lib/scrub/default-dispatch.ts. */
export function scrubDispatchModule(): string {
  const p = packDispatch(DEFAULT_RULES);
  const list = (xs: readonly number[]): string => `[${xs.join(',')}]`;
  return [
    '// Generated from lib/scrub/secret-rules.ts by `node dist/scripts/gen-scrub-dispatch.js`; a test keeps it in step. Do not edit.',
    "import type { PackedDispatch } from './dispatch.js';",
    '',
    '/** The dispatch tables of DEFAULT_RULES, packed (see PackedDispatch in dispatch.ts). */',
    '// biome-ignore format: generated data, one line per field',
    'export const DEFAULT_DISPATCH: PackedDispatch = {',
    `  fingerprint: ${JSON.stringify(p.fingerprint)},`,
    `  entries: ${list(p.entries)},`,
    `  lists: ${list(p.lists)},`,
    `  pairs: ${list(p.pairs)},`,
    `  high: ${list(p.high)},`,
    `  slotKeys: ${list(p.slotKeys)},`,
    `  rows: [${p.rows.map(list).join(',')}],`,
    `  slotRows: ${list(p.slotRows)},`,
    '};',
    '',
  ].join('\n');
}

const self = fileURLToPath(import.meta.url);
if (process.argv[1] && path.resolve(process.argv[1]) === self) {
  const root = path.resolve(path.dirname(self), '../..');
  fs.writeFileSync(path.join(root, 'lib/scrub/default-dispatch.ts'), scrubDispatchModule());
}
