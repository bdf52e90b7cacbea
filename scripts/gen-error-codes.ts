/**
 * Regenerates docs/errors.md from the declared codes in lib/errors.ts, so the table cannot drift
 * from the code: `npm run build && node dist/scripts/gen-error-codes.js`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES, type ErrorCode } from '../lib/errors.js';

/** The error-code reference: one table of thrown codes, one of codes reported inside events. */
export function errorCodeReference(): string {
  const codes = Object.keys(ERROR_CODES) as ErrorCode[];
  const thrown: string[] = [];
  const reported: string[] = [];
  for (const code of codes) {
    const spec = ERROR_CODES[code];
    if ('exitCode' in spec)
      thrown.push(`| \`${code}\` | ${spec.exitCode} | ${spec.category} | ${spec.recoverability} | ${spec.meaning} |`);
    else reported.push(`| \`${code}\` | ${spec.meaning} |`);
  }
  return [
    '# Error codes',
    '',
    'Generated from `lib/errors.ts` by `node dist/scripts/gen-error-codes.js`; a test keeps it in step.',
    '',
    'Every failure minicode reports carries a stable code. Scripts should match on the code, never on',
    'the message text, which may change. `MINICODE_E_*` codes are errors, `MINICODE_W_*` warnings.',
    '',
    '## Errors that end a command',
    '',
    'These reach the summary line (`ok:false`, `error.code` under `--json`) and set the exit code:',
    '2 for usage errors, 130 for an interrupted run, 1 otherwise. The category and recoverability',
    'are those of the event model.',
    '',
    '| code | exit | category | recoverability | meaning |',
    '|---|---|---|---|---|',
    ...thrown,
    '',
    '## Codes reported inside events and records',
    '',
    "These appear as the `code` of a `diagnostic.raised` event, of a failed run's `error`, or of a",
    'batch error record; the command itself goes on (or ends with one of the codes above).',
    '',
    '| code | meaning |',
    '|---|---|',
    ...reported,
    '',
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  fs.writeFileSync(path.join(root, 'docs/errors.md'), errorCodeReference());
}
