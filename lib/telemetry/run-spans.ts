/**
 * One run's spans from its events, following the OpenTelemetry GenAI semantic conventions:
 *
 * - `invoke_agent {agent}` (INTERNAL): the whole run, with `gen_ai.conversation.id` = the
 *   session id, the provider and model, summed usage, and `error.type` when it did not complete;
 * - `chat {model}` (CLIENT): each model response (`model.response.started` to `.completed`),
 *   with `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.response.id`,
 *   `gen_ai.response.finish_reasons`, `gen_ai.usage.input_tokens` / `output_tokens` /
 *   `cache_read.input_tokens` and `gen_ai.response.time_to_first_chunk` (seconds);
 * - `execute_tool {tool}` (INTERNAL): each tool call, with `gen_ai.tool.name`,
 *   `gen_ai.tool.call.id`, `gen_ai.tool.type`, and `error.type` when it failed or was denied.
 *
 * The events are already scrubbed; the exporter scrubs attribute values again. Content (the
 * prompt, tool arguments and results) is added only with `captureContent`. Pure apart from
 * the injected clock and id source.
 */
import { performance } from 'node:perf_hooks';
import type { OutputEvent } from '../events/index.js';
import {
  newSpanId,
  newTraceId,
  nowNs,
  SpanKind,
  StatusCode,
  traceparent,
  type AttributeValue,
  type SpanData,
  type TraceParent,
} from './span.js';
import { definedOnly } from '../defined-only.js';

/** Characters of captured content per attribute. */
export const CONTENT_CHARS = 4000;

/** What the builder needs to know of the run. */
export interface RunSpanOptions {
  /** The batch span; none: the run span is the root of a new trace. */
  parent?: TraceParent;
  /** `minicode` for the built-in agent, the CLI's name for a native agent. */
  agentName: string;
  provider?: string;
  model?: string;
  captureContent?: boolean;
  prompt?: string;
  /** Extra attributes of the run span (e.g. `minicode.batch.line.id`). */
  attributes?: Record<string, AttributeValue>;
  clock?: () => string;
  spanId?: () => string;
}

/** Builds the spans as events arrive. */
export interface RunSpans {
  /** The run span's context. */
  readonly context: TraceParent;
  /** Its W3C `traceparent` value (a child process's TRACEPARENT). */
  readonly traceparent: string;
  onEvent(event: OutputEvent): void;
  /** End the run span and return every span; `error` is the run's error code when it did not complete. */
  finish(outcome: { ok: boolean; error?: string }): SpanData[];
}

/** GenAI provider names for our provider formats (the conventions' well-known values). */
const PROVIDER_NAMES: Record<string, string> = {
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  anthropic: 'anthropic',
  gemini: 'gcp.gemini',
  ollama: 'ollama',
};

/** The `gen_ai.provider.name` of a provider format or native agent. */
export function providerName(format: string | undefined): string | undefined {
  return format === undefined ? undefined : (PROVIDER_NAMES[format] ?? format);
}

const FIRST_CHUNK = new Set(['assistant.message.delta', 'assistant.reasoning.delta', 'assistant.tool_call.started']);
const TOOL_END = new Set(['tool.completed', 'tool.failed', 'tool.denied', 'tool.cancelled']);

type Open = { span: SpanData; firstChunk?: boolean; startMs: number };

function clip(text: string): string {
  return text.length > CONTENT_CHARS ? `${text.slice(0, CONTENT_CHARS)}…` : text;
}

/** Start the run span now. */
export function createRunSpans(options: RunSpanOptions): RunSpans {
  const clock = options.clock ?? nowNs;
  const spanId = options.spanId ?? newSpanId;
  const traceId = options.parent?.traceId ?? newTraceId();
  const provider = providerName(options.provider);
  const run: SpanData = definedOnly({
    traceId,
    spanId: spanId(),
    parentSpanId: options.parent ? options.parent.spanId : undefined,
    name: `invoke_agent ${options.agentName}`,
    kind: SpanKind.INTERNAL,
    startNs: clock(),
    endNs: '',
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': options.agentName,
      ...options.attributes,
    },
    status: { code: StatusCode.UNSET },
  });
  if (provider) run.attributes['gen_ai.provider.name'] = provider;
  if (options.model) run.attributes['gen_ai.request.model'] = options.model;
  if (options.captureContent && options.prompt !== undefined)
    run.attributes['gen_ai.input.messages'] = JSON.stringify([
      { role: 'user', parts: [{ type: 'text', content: clip(options.prompt) }] },
    ]);
  const done: SpanData[] = [];
  let chat: Open | undefined;
  const tools = new Map<string, Open>();
  const usage = { input: 0, output: 0, seen: false };
  const child = (name: string, kind: number, attributes: Record<string, AttributeValue>): SpanData => ({
    traceId,
    spanId: spanId(),
    parentSpanId: run.spanId,
    name,
    kind,
    startNs: clock(),
    endNs: '',
    attributes,
    status: { code: StatusCode.UNSET },
  });
  const endChat = (): void => {
    if (!chat) return;
    chat.span.endNs = clock();
    done.push(chat.span);
    chat = undefined;
  };
  return {
    context: { traceId, spanId: run.spanId },
    traceparent: traceparent({ traceId, spanId: run.spanId }),
    onEvent(event) {
      const p = event.payload as Record<string, unknown>;
      if (run.attributes['gen_ai.conversation.id'] === undefined && event.sessionId)
        run.attributes['gen_ai.conversation.id'] = event.sessionId;
      if (event.type === 'model.response.started') {
        endChat();
        const model = (p.model as string | undefined) ?? options.model;
        const attrs: Record<string, AttributeValue> = {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.stream': true,
        };
        const name = providerName((p.provider as string | undefined) ?? options.provider);
        if (name) attrs['gen_ai.provider.name'] = name;
        if (options.model) attrs['gen_ai.request.model'] = options.model;
        if (typeof p.model === 'string') attrs['gen_ai.response.model'] = p.model;
        if (typeof p.responseId === 'string') attrs['gen_ai.response.id'] = p.responseId;
        if (event.sessionId) attrs['gen_ai.conversation.id'] = event.sessionId;
        chat = { span: child(`chat ${model ?? 'unknown'}`, SpanKind.CLIENT, attrs), startMs: performance.now() };
      } else if (chat && !chat.firstChunk && FIRST_CHUNK.has(event.type)) {
        chat.firstChunk = true;
        chat.span.attributes['gen_ai.response.time_to_first_chunk'] = Number(
          ((performance.now() - chat.startMs) / 1000).toFixed(6),
        );
      } else if (event.type === 'model.response.completed' && chat) {
        const a = chat.span.attributes;
        if (typeof p.responseId === 'string') a['gen_ai.response.id'] = p.responseId;
        if (typeof p.stopReason === 'string') a['gen_ai.response.finish_reasons'] = [p.stopReason];
        const u = p.usage as { inputTokens?: number; outputTokens?: number; cacheReadTokens?: number } | undefined;
        if (u?.inputTokens !== undefined) a['gen_ai.usage.input_tokens'] = u.inputTokens;
        if (u?.outputTokens !== undefined) a['gen_ai.usage.output_tokens'] = u.outputTokens;
        if (u?.cacheReadTokens !== undefined) a['gen_ai.usage.cache_read.input_tokens'] = u.cacheReadTokens;
        if (u) {
          usage.seen = true;
          usage.input += u.inputTokens ?? 0;
          usage.output += u.outputTokens ?? 0;
        }
        if (p.outcome === 'error') {
          chat.span.status = { code: StatusCode.ERROR };
          a['error.type'] = 'model_error';
        }
        endChat();
      } else if (event.type === 'tool.started' && typeof p.toolCallId === 'string') {
        const name = typeof p.name === 'string' ? p.name : 'unknown';
        const attrs: Record<string, AttributeValue> = {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': name,
          'gen_ai.tool.call.id': p.toolCallId,
          'gen_ai.tool.type': typeof p.server === 'string' ? 'extension' : 'function',
        };
        if (options.captureContent && p.input !== undefined)
          attrs['gen_ai.tool.call.arguments'] = clip(JSON.stringify(p.input) ?? '');
        tools.set(p.toolCallId, {
          span: child(`execute_tool ${name}`, SpanKind.INTERNAL, attrs),
          startMs: performance.now(),
        });
      } else if (TOOL_END.has(event.type) && typeof p.toolCallId === 'string') {
        const open = tools.get(p.toolCallId);
        if (!open) return;
        tools.delete(p.toolCallId);
        if (event.type !== 'tool.completed') {
          open.span.status = { code: StatusCode.ERROR, message: event.type.slice('tool.'.length) };
          open.span.attributes['error.type'] =
            event.type === 'tool.denied' ? 'denied' : event.type === 'tool.cancelled' ? 'cancelled' : 'tool_error';
        } else if (options.captureContent && typeof p.output === 'string')
          open.span.attributes['gen_ai.tool.call.result'] = clip(p.output);
        open.span.endNs = clock();
        done.push(open.span);
      }
    },
    finish(outcome) {
      endChat();
      // Tools still open when the run ended (an abort): ended here, marked cancelled.
      for (const open of tools.values()) {
        open.span.endNs = clock();
        open.span.status = { code: StatusCode.ERROR, message: 'cancelled' };
        open.span.attributes['error.type'] = 'cancelled';
        done.push(open.span);
      }
      tools.clear();
      if (usage.seen) {
        run.attributes['gen_ai.usage.input_tokens'] = usage.input;
        run.attributes['gen_ai.usage.output_tokens'] = usage.output;
      }
      if (!outcome.ok) {
        run.status = definedOnly({ code: StatusCode.ERROR, message: outcome.error || undefined });
        run.attributes['error.type'] = outcome.error ?? 'failed';
      }
      run.endNs = clock();
      return [...done, run];
    },
  };
}
