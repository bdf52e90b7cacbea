/**
 * An MCP server tool as a minicode tool: gated (policy decides before it runs), described and
 * typed by what the server lists, its result capped and masked at the producer, `isError`
 * reported as a failure with the server's message, and a timeout or a crash as a tool failure
 * the model can read. A call cancelled by the run sends `notifications/cancelled` (the SDK does
 * so when the signal aborts).
 */
import { z } from 'zod';
import type { AnyTool, ToolOutcome } from '../tools/types.js';
import type { ServerConnection, ServerTool } from './connection.js';
import { maskValues, resultContent } from './output.js';
import { adaptInputSchema } from '../tools/schema-adapt.js';
import { definedOnly } from '../defined-only.js';

/** What the adapter needs from the server side. */
export interface McpToolBinding {
  server: string;
  tool: ServerTool;
  /** The provider-facing name (`mcp__<server>__<tool>`, unique). */
  name: string;
  toolTimeoutMs: number;
  /** The live connection, or undefined once the server has gone. */
  connection(): ServerConnection | undefined;
  /** Literal secret values of the server's config, masked in what the tool returns. */
  secrets: readonly string[];
  /** The server's config trusts it (`trust: true`). */
  trusted?: boolean;
}

/** Arguments are an object; the server validates them against its own schema. */
const ARGUMENTS = z.record(z.string(), z.unknown());

/** Characters of a call's arguments its title shows (the approval question, `tool.started`). */
const MAX_TITLE_ARGS = 160;

/** Characters of one progress message kept. */
const MAX_PROGRESS = 500;

/** The longest description passed on to a provider (some reject longer ones). */
const MAX_DESCRIPTION = 1_024;

/**
 * The reason a cancelled call gives the server: the SDK sends `String(reason)` in
 * `notifications/cancelled`, so an object reason (the run's abort) would arrive as
 * "[object Object]"; a person reading the server's log gets words instead.
 */
export function cancelReason(reason: unknown): string {
  if (typeof reason === 'string' && reason !== '') return reason;
  if (reason instanceof Error && reason.message !== '') return reason.message;
  if (reason && typeof reason === 'object') {
    for (const key of ['message', 'reason', 'kind'] as const) {
      const value = (reason as Record<string, unknown>)[key];
      if (typeof value === 'string' && value !== '') return `minicode cancelled the call: ${value}`;
    }
  }
  return 'minicode cancelled the call';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A minicode tool that calls `binding.tool` on its server. */
export function createMcpTool(binding: McpToolBinding): AnyTool {
  const { server, tool } = binding;
  const description = (tool.description ?? `${tool.name} (MCP server ${server})`).slice(0, MAX_DESCRIPTION);
  return {
    name: binding.name,
    description,
    inputSchema: ARGUMENTS,
    jsonSchema: adaptInputSchema(tool.inputSchema),
    // A tool its server says is read-only is shown as a read and may be asked for in read-only
    // mode; it stays gated: the hint is the server's claim, so it never skips the question alone.
    kind: tool.readOnly ? 'read' : 'other',
    gated: true,
    ...(tool.readOnly ? { readOnly: true } : {}),
    server,
    ...(binding.trusted ? { trusted: true } : {}),
    // The arguments are what a person approves, as a bash approval shows its command.
    title: (input: Record<string, unknown>) => {
      const args = input && Object.keys(input).length > 0 ? JSON.stringify(input) : '';
      return `${server}: ${tool.name}${args ? ` ${args.length > MAX_TITLE_ARGS ? `${args.slice(0, MAX_TITLE_ARGS)}...` : args}` : ''}`;
    },
    async run(input: Record<string, unknown>, ctx): Promise<ToolOutcome> {
      const connection = binding.connection();
      if (!connection)
        return {
          status: 'failed',
          cause: 'TOOL_ERROR',
          message: `MCP server ${server} is not running`,
          hint: 'see the diagnostics for why it stopped',
        };
      let result: Awaited<ReturnType<NonNullable<typeof connection>['call']>>;
      // One signal per call: the SDK listens on the signal it is given, and the run's signal
      // lives for the whole run, so listeners of finished calls must not pile up on it.
      const local = new AbortController();
      const onAbort = (): void => local.abort(cancelReason(ctx.signal.reason));
      if (ctx.signal.aborted) onAbort();
      else ctx.signal.addEventListener('abort', onAbort, { once: true });
      try {
        result = await connection.call(tool.name, input, {
          signal: local.signal,
          timeoutMs: binding.toolTimeoutMs,
          // notifications/progress become tool.progress (ACP: tool_call_update), masked and bounded.
          onProgress: (message) => ctx.progress?.(maskValues(message, binding.secrets).slice(0, MAX_PROGRESS)),
        });
      } catch (error) {
        const message = maskValues(errorMessage(error), binding.secrets);
        const timedOut = /timed out|timeout/i.test(message);
        return definedOnly({
          status: 'failed',
          cause: 'TOOL_ERROR',
          message: timedOut
            ? `${binding.name} timed out after ${binding.toolTimeoutMs} ms without progress`
            : `${binding.name}: ${message}`,
          hint: timedOut ? `raise toolTimeoutMs for server ${server} if the tool is slow` : undefined,
        });
      } finally {
        ctx.signal.removeEventListener('abort', onAbort);
      }
      const capped = resultContent(result, { imageName: tool.name });
      const text = maskValues(capped.text, binding.secrets);
      const receipt = definedOnly({ bytes: capped.totalChars, truncated: capped.truncated || undefined });
      if (result.isError) {
        const first = text.split('\n').find((l) => l.trim() !== '') ?? 'the server reported an error';
        return {
          status: 'failed',
          cause: 'TOOL_ERROR',
          message: `${server}: ${first.slice(0, 500)}`,
          output: text,
          receipt,
        };
      }
      // Its images go to the model after the step's tool results, as read_image's do.
      return definedOnly({
        status: 'completed',
        summary: `${server}: ${tool.name} returned ${capped.totalChars} chars${capped.truncated ? ' (truncated)' : ''}${capped.images.length > 0 ? ` and ${capped.images.length} image${capped.images.length === 1 ? '' : 's'}` : ''}`,
        output: text,
        receipt,
        images: capped.images.length > 0 ? capped.images : undefined,
      });
    },
  };
}
