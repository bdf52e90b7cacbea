/**
 * A command's output read for the marks of a sandbox refusal, so the model is told in one line
 * what the boundary stopped and can adapt (write inside the workspace, work offline). The marks
 * are the errors the kernel gives inside the sandbox: a write to a read-only mount is EROFS, a
 * connection from a network namespace without a route is ENETUNREACH, a name lookup without a
 * resolver fails. Only read under a sandboxed mode: the same words unsandboxed are the
 * command's own business. Under a host allowlist the proxy reports the hosts it refused, and
 * the line names them.
 */
import type { SandboxMode } from './settings.js';

const MARKS: readonly { pattern: RegExp; what: string; hint: string }[] = [
  {
    pattern: /Read-only file system|EROFS/,
    what: 'a write outside the workspace',
    hint: 'write inside the workspace or its temp folder instead',
  },
  {
    pattern:
      /Network is unreachable|ENETUNREACH|Could not resolve host|Temporary failure in name resolution|EAI_AGAIN|getaddrinfo ENOTFOUND/,
    what: 'a network connection',
    hint: 'the network is off inside the sandbox (the user can open it with --allow-network)',
  },
];

/** With the network off, the sandbox's own loopback has no listener: a refused connection is the sandbox's doing too. */
const LOOPBACK_MARK = {
  pattern: /Connection refused|ECONNREFUSED|Couldn't connect to server/,
  what: 'a network connection',
  hint: MARKS[1]!.hint,
};

/** The one line to show the model when `output` shows a refusal under `sandbox`, or the allowlisting proxy refused `refusedHosts`; undefined when none shows. */
export function refusalNote(
  output: string,
  sandbox: { mode: SandboxMode; network: boolean; allowHosts?: readonly string[] } | undefined,
  refusedHosts: readonly string[] = [],
): string | undefined {
  if (!sandbox || sandbox.mode === 'off') return undefined;
  const mode = sandbox.mode;
  const proxied = !sandbox.network && (sandbox.allowHosts?.length ?? 0) > 0;
  const marks = sandbox.network ? MARKS : [...MARKS, LOOPBACK_MARK];
  const found = marks.filter(
    (m, i) =>
      m.pattern.test(output) && marks.findIndex((other) => other.what === m.what && other.pattern.test(output)) === i,
  );
  const parts = found.map((m) =>
    m.what === 'a network connection' && proxied ? { what: m.what, hint: allowHint(sandbox.allowHosts!) } : m,
  );
  if (refusedHosts.length > 0) {
    // The proxy knows the host: name it instead of the generic mark.
    const what = `a connection to ${refusedHosts.join(', ')}`;
    const hint = allowHint(sandbox.allowHosts ?? []);
    parts.splice(0, parts.length, ...parts.filter((p) => p.what !== 'a network connection'), { what, hint });
  }
  if (parts.length === 0) return undefined;
  return `[the sandbox (${mode}) refused ${parts.map((m) => m.what).join(' and ')}: ${parts.map((m) => m.hint).join('; ')}]`;
}

/** The hint under a host allowlist: which hosts are reachable, and how. */
function allowHint(allow: readonly string[]): string {
  return `only ${allow.join(', ')} can be reached, through the proxy in HTTP_PROXY/HTTPS_PROXY (the user can add hosts to sandbox.network.allow)`;
}
