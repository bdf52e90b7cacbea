/**
 * The line a command prints on stderr when it fails with a {@link MinicodeError}: its message,
 * optionally its code, and its next action on a second line. The text is already neutralised
 * (the error's constructor does it); here it is also scrubbed, because a message may quote input
 * that holds a credential (a token given as `--provider`, a URL with a password).
 */
import { scrubArtefact } from './artefacts.js';

export function failureLine(
  error: { message: string; code?: string; action?: string | undefined },
  options: { withCode?: boolean } = {},
): string {
  const code = options.withCode === true && error.code !== undefined ? ` [${error.code}]` : '';
  return scrubArtefact(`minicode: ${error.message}${code}${error.action ? `\n  ${error.action}` : ''}\n`);
}
