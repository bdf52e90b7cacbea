/**
 * Errors a caller drops on purpose (a fallback is as good as the answer) but that someone chasing
 * a problem may want to see: with `MINICODE_DEBUG` set (not empty, not `0`), each one is written
 * to stderr as one line, its message redacted as everything minicode prints outside the event
 * pipeline (lib/artefacts.ts), control characters blanked. Off, a call costs one comparison.
 */
import { outputRedactor } from './artefacts.js';

const on = (process.env.MINICODE_DEBUG ?? '') !== '' && process.env.MINICODE_DEBUG !== '0';

/** The errno code of a Node system error (`ENOENT`, `EACCES`, ...), else undefined. */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Report a dropped error under `MINICODE_DEBUG`: `where` names what was being done. */
export function reportDropped(where: string, error: unknown): void {
  if (!on) return;
  const name = error instanceof Error ? error.name : typeof error;
  const code = errnoOf(error);
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `minicode debug: ${where}: ${name}${code ? ` ${code}` : ''}: ${outputRedactor()(message).replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')}\n`,
  );
}

/**
 * Drop `error` silently when its errno (`ENOENT`) or its name (`SyntaxError` for a torn JSON
 * file, `GitError`) is one of `expected`; report anything else under `MINICODE_DEBUG`.
 */
export function dropExpected(where: string, error: unknown, ...expected: string[]): void {
  const code = errnoOf(error);
  if (code !== undefined && expected.includes(code)) return;
  if (error instanceof Error && expected.includes(error.name)) return;
  reportDropped(where, error);
}
