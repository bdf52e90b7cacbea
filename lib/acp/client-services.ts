import fs from 'node:fs/promises';
import path from 'node:path';
import type {
  AgentContext,
  ClientCapabilities,
  PermissionOption,
  ReadTextFileRequest,
  RequestPermissionRequest,
} from '@agentclientprotocol/sdk';
import type { PermissionDecision, PermissionRequest, TerminalAccess, TextFileAccess } from './agent-port.js';
import type { AcpSession } from './sessions.js';
import { definedOnly } from '../defined-only.js';

/** Where diagnostics go: stderr, one line each (stdout carries only ACP messages). */
export type Diagnose = (message: string) => void;

/** The options offered with every permission request, mapped back to the approval outcomes. */
const PERMISSION_OPTIONS: ReadonlyArray<
  PermissionOption & { decision: 'allow' | 'allow-always' | 'deny' | 'deny-always' }
> = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once', decision: 'allow' },
  { optionId: 'allow-always', name: 'Always allow', kind: 'allow_always', decision: 'allow-always' },
  { optionId: 'deny', name: 'Deny', kind: 'reject_once', decision: 'deny' },
  { optionId: 'deny-always', name: 'Always deny', kind: 'reject_always', decision: 'deny-always' },
];

/**
 * Ask the client about a gated tool with `session/request_permission`. Never rejects: a client
 * error denies (fail closed, with a diagnostic), a cancelled turn gives `cancelled` at once even
 * if the client never answers, and "always" answers are remembered for the session.
 */
export async function askPermission(
  client: AgentContext,
  session: AcpSession,
  request: PermissionRequest,
  signal: AbortSignal,
  diagnose: Diagnose,
): Promise<PermissionDecision> {
  if (signal.aborted) return 'cancelled';
  // read-only denies every gated tool without asking: that is what the mode promises.
  if (session.mode === 'read-only') return 'deny';
  const remembered = session.remembered.get(request.toolName);
  if (remembered) return remembered;
  let optionId: string;
  try {
    const params: RequestPermissionRequest = {
      sessionId: session.id,
      toolCall: definedOnly({
        toolCallId: request.toolCallId,
        title: request.title,
        kind: request.kind ?? 'other',
        status: 'pending',
        rawInput: request.input,
        // An escalation question shows what the sandbox refused, as the tool call's content.
        content:
          request.sandboxRefusal === undefined
            ? undefined
            : [{ type: 'content' as const, content: { type: 'text' as const, text: request.sandboxRefusal } }],
      }),
      options: PERMISSION_OPTIONS.map(({ optionId: id, name, kind }) => ({ optionId: id, name, kind })),
    };
    const response = await client.request('session/request_permission', params, {
      cancellationSignal: signal,
      stopWaitingOnCancel: true,
    });
    if (response.outcome.outcome === 'cancelled') return 'cancelled';
    optionId = response.outcome.optionId;
  } catch (error) {
    if (signal.aborted) return 'cancelled';
    diagnose(
      `session/request_permission failed (${error instanceof Error ? error.message : String(error)}); denying ${request.toolName}`,
    );
    return 'deny';
  }
  const option = PERMISSION_OPTIONS.find((o) => o.optionId === optionId);
  if (!option) {
    diagnose(`session/request_permission answered an unknown option "${optionId}"; denying ${request.toolName}`);
    return 'deny';
  }
  if (option.decision === 'allow-always') session.remembered.set(request.toolName, 'allow-always');
  if (option.decision === 'deny-always') {
    session.remembered.set(request.toolName, 'deny');
    return 'deny';
  }
  return option.decision;
}

/** Slice `text` to `limit` lines from 1-based `line`, as `fs/read_text_file` does. */
function sliceLines(text: string, line: number | undefined, limit: number | undefined): string {
  if (line === undefined && limit === undefined) return text;
  const lines = text.split('\n');
  const start = Math.max(0, (line ?? 1) - 1);
  return lines.slice(start, limit === undefined ? undefined : start + limit).join('\n');
}

/**
 * File access for a session's tools: the client's `fs/*` methods for what it offers (reads see
 * unsaved editor buffers, writes land in them), the local file system for the rest.
 */
export function textFileAccess(
  client: AgentContext,
  capabilities: ClientCapabilities,
  session: AcpSession,
): TextFileAccess {
  const canRead = capabilities.fs?.readTextFile === true;
  const canWrite = capabilities.fs?.writeTextFile === true;
  const resolve = (file: string) => path.resolve(session.cwd, file);
  return {
    via: canRead || canWrite ? 'client' : 'local',
    async readTextFile(file, options = {}) {
      if (!canRead) return sliceLines(await fs.readFile(resolve(file), 'utf8'), options.line, options.limit);
      const params: ReadTextFileRequest = { sessionId: session.id, path: resolve(file) };
      if (options.line !== undefined) params.line = options.line;
      if (options.limit !== undefined) params.limit = options.limit;
      return (await client.request('fs/read_text_file', params)).content;
    },
    async writeTextFile(file, content) {
      if (!canWrite) {
        await fs.mkdir(path.dirname(resolve(file)), { recursive: true });
        await fs.writeFile(resolve(file), content, 'utf8');
        return;
      }
      await client.request('fs/write_text_file', { sessionId: session.id, path: resolve(file), content });
    },
  };
}

/**
 * Commands through the client's terminals, or undefined when the client does not offer them.
 * `onTerminal` lets the server embed the terminal in the tool call before the command runs.
 */
export function terminalAccess(
  client: AgentContext,
  capabilities: ClientCapabilities,
  session: AcpSession,
  onTerminal: (toolCallId: string, terminalId: string) => Promise<void>,
): TerminalAccess | undefined {
  if (capabilities.terminal !== true) return undefined;
  return {
    async run(command, signal) {
      const params: Parameters<AgentContext['createTerminal']>[0] = {
        sessionId: session.id,
        command: command.command,
        args: command.args ?? [],
        env: Object.entries(command.env ?? {}).map(([name, value]) => ({ name, value })),
        cwd: command.cwd === undefined ? session.cwd : path.resolve(session.cwd, command.cwd),
      };
      if (command.outputByteLimit !== undefined) params.outputByteLimit = command.outputByteLimit;
      const terminal = await client.createTerminal(params);
      try {
        if (command.toolCallId !== undefined) await onTerminal(command.toolCallId, terminal.id);
        const kill = () => void terminal.kill().catch(() => {});
        signal.addEventListener('abort', kill, { once: true });
        try {
          const exit = await terminal.waitForExit();
          const output = await terminal.currentOutput();
          return {
            output: output.output,
            truncated: output.truncated,
            exitCode: exit.exitCode ?? null,
            signal: exit.signal ?? null,
          };
        } finally {
          signal.removeEventListener('abort', kill);
        }
      } finally {
        await terminal.release().catch(() => {});
      }
    },
  };
}
