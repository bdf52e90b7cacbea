/**
 * A command's output read for the marks of a sandbox refusal, so the model is told in one line
 * what the boundary stopped and can adapt (write inside the workspace, work offline). The marks
 * are the errors the kernel gives inside the sandbox: a write to a read-only mount is EROFS, a
 * connection from a network namespace without a route is ENETUNREACH, a name lookup without a
 * resolver fails. Only read under a sandboxed mode: the same words unsandboxed are the
 * command's own business.
 */
import type { SandboxMode } from './settings.js';

const MARKS: readonly { pattern: RegExp; what: string; hint: string }[] = [
  { pattern: /Read-only file system|EROFS/, what: 'a write outside the workspace', hint: 'write inside the workspace or its temp folder instead' },
  {
    pattern: /Network is unreachable|ENETUNREACH|Could not resolve host|Temporary failure in name resolution|EAI_AGAIN|getaddrinfo ENOTFOUND/,
    what: 'a network connection',
    hint: 'the network is off inside the sandbox (the user can open it with --allow-network)',
  },
];

/** With the network off, the sandbox's own loopback has no listener: a refused connection is the sandbox's doing too. */
const LOOPBACK_MARK = { pattern: /Connection refused|ECONNREFUSED/, what: 'a network connection', hint: MARKS[1]!.hint };

/** The one line to show the model when `output` shows a refusal under `sandbox`; undefined when none shows. */
export function refusalNote(output: string, sandbox: { mode: SandboxMode; network: boolean } | undefined): string | undefined {
  if (!sandbox || sandbox.mode === 'off') return undefined;
  const mode = sandbox.mode;
  const marks = sandbox.network ? MARKS : [...MARKS, LOOPBACK_MARK];
  const found = marks.filter((m, i) => m.pattern.test(output) && marks.findIndex((other) => other.what === m.what && other.pattern.test(output)) === i);
  if (found.length === 0) return undefined;
  return `[the sandbox (${mode}) refused ${found.map((m) => m.what).join(' and ')}: ${found.map((m) => m.hint).join('; ')}]`;
}
