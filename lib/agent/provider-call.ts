/**
 * One provider request over real HTTP: send the built request, check the status before any
 * stream parsing (an error body is never an event stream), feed the response bytes to the
 * format's decoder, and collect what the loop needs to continue (text, tool calls, opaque
 * reasoning items, the response outcome). Every decoded event goes to `emit` as it arrives.
 */
import type { EventDraft, ErrorInfo, StopReason, Usage } from '../events/index.js';
import { PROVIDER_DECODERS } from '../providers/index.js';
import { classifyHttpFailure, httpResponseEvents } from '../providers/http-errors.js';
import { toolCallOf, type ProviderFormat, type ReasoningItem, type ToolCallPart } from './conversation.js';
import type { ProviderRequest } from './requests/index.js';
import { httpRequest, type HttpClient, type HttpReply } from './http-client.js';
import { definedOnly } from '../defined-only.js';

/** What one successful provider response gave the loop. */
export interface ProviderReply {
  text: string;
  toolCalls: ToolCallPart[];
  reasoning: ReasoningItem[];
  stopReason?: StopReason;
  usage?: Usage;
  refusal?: string;
}

/** A failed attempt, with what the retry policy needs to decide. */
export class ProviderCallError extends Error {
  readonly code = 'MINICODE_E_PROVIDER';
  constructor(
    message: string,
    readonly info: ErrorInfo,
    readonly retryable: boolean,
    readonly retryAfterMs: number | undefined,
    /** True for a context-length error: the recovery-compaction path, not a retry. */
    readonly contextLength: boolean,
  ) {
    super(message);
    this.name = 'ProviderCallError';
  }
}

/** Options of {@link callProvider}. */
export interface ProviderCallOptions {
  format: ProviderFormat;
  request: ProviderRequest;
  signal: AbortSignal;
  /** One event outside the response stream (HTTP status, network errors). */
  emit: (draft: EventDraft) => void;
  /**
   * What one chunk of the response body decoded to. A returned promise pauses the body read
   * until the pipeline has room (backpressure reaches the provider's socket). Default: `emit` each.
   */
  write?: (drafts: EventDraft[]) => Promise<void> | undefined;
  /** Leave the decoder's `usage.reported` out of the stream (the caller reports usage itself). */
  omitReportedUsage?: boolean;
  /** What carries the request; default {@link httpRequest}. */
  http?: HttpClient | undefined;
  now?: () => number;
}

const CONTEXT_LENGTH =
  /context[_ ]length|context window|too many tokens|prompt is too long|maximum context|token limit/i;

/** Send one request and decode its stream. Throws {@link ProviderCallError} on a provider failure. */
export async function callProvider(options: ProviderCallOptions): Promise<ProviderReply> {
  const { request } = options;
  const req = {
    url: request.url,
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: options.signal,
  };
  let response: HttpReply;
  try {
    response = await (options.http ?? httpRequest)(req);
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    const code =
      (error as { code?: string; cause?: { code?: string } }).code ??
      (error as { cause?: { code?: string } }).cause?.code;
    const message = `cannot reach ${new URL(request.url).host}: ${(error as Error).message}${code && !(error as Error).message.includes(code) ? ` (${code})` : ''}`;
    const info: ErrorInfo = {
      category: 'NETWORK_ERROR',
      code: 'MINICODE_E_NETWORK',
      message,
      recoverability: 'RETRYABLE',
    };
    options.emit({ type: 'error.raised', payload: { error: info }, severity: 'warning', fidelity: 'synthetic' });
    throw new ProviderCallError(message, info, true, undefined, false);
  }
  const headers = response.headers;
  if (response.status >= 400) {
    const body = await response.bytes().catch(() => new Uint8Array(0));
    const events = httpResponseEvents(
      definedOnly({ provider: options.format, status: response.status, headers, body, now: options.now }),
    );
    for (const e of events) options.emit(e);
    const failure = classifyHttpFailure({ status: response.status, headers, body });
    const raised = events.find((e) => e.type === 'error.raised');
    const info: ErrorInfo =
      raised?.type === 'error.raised'
        ? raised.payload.error
        : {
            category: 'PROVIDER_ERROR',
            code: `http_${response.status}`,
            message: `HTTP ${response.status}`,
            recoverability: 'UNKNOWN',
          };
    throw new ProviderCallError(
      info.message,
      info,
      failure.retryable,
      failure.delayMs,
      CONTEXT_LENGTH.test(info.message),
    );
  }
  for (const e of httpResponseEvents({ provider: options.format, status: response.status, headers })) options.emit(e);
  return decodeBody(options, response);
}

async function decodeBody(options: ProviderCallOptions, response: HttpReply): Promise<ProviderReply> {
  const factory = PROVIDER_DECODERS[options.format];
  if (!factory) throw new Error(`no decoder registered for ${options.format}`);
  const texts: string[] = [];
  const toolCalls: ToolCallPart[] = [];
  const reasoning: ReasoningItem[] = [];
  let outcome: 'completed' | 'truncated' | 'error' | undefined;
  let stopReason: StopReason | undefined;
  let usage: Usage | undefined;
  let refusal: string | undefined;
  let error: ErrorInfo | undefined;
  let batch: EventDraft[] = [];
  const write = options.write ?? ((drafts: EventDraft[]) => void drafts.forEach(options.emit));
  const flush = (): Promise<void> | undefined => {
    if (batch.length === 0) return undefined;
    const drafts = batch;
    batch = [];
    return write(drafts);
  };
  const decoder = factory({
    onEvent(d) {
      switch (d.type) {
        case 'assistant.message.completed':
          texts.push(d.payload.text);
          if (d.payload.refusal) refusal = d.payload.refusal;
          break;
        case 'assistant.tool_call.completed':
          if (d.payload.executor !== 'server') toolCalls.push(toolCallOf(d.payload));
          break;
        case 'assistant.reasoning.completed':
          if (options.format === 'anthropic') {
            const p = d.payload;
            if (p.redacted && p.data !== undefined)
              reasoning.push({ format: 'anthropic', item: { type: 'redacted_thinking', data: p.data } });
            else if (p.signature !== undefined)
              reasoning.push({
                format: 'anthropic',
                item: { type: 'thinking', thinking: p.text ?? '', signature: p.signature },
              });
          } else if (options.format === 'openai-responses' && d.payload.data !== undefined) {
            // With store: false the encrypted item is the reasoning's only copy: it goes back next step.
            reasoning.push({
              format: 'openai-responses',
              item: responsesReasoningItem(d.payload.data, d.payload.redacted ? undefined : d.payload.text),
            });
          }
          break;
        case 'error.raised':
          error = d.payload.error;
          break;
        case 'model.response.completed':
          outcome = d.payload.outcome;
          stopReason = d.payload.stopReason;
          if (d.payload.usage) usage = d.payload.usage;
          break;
        case 'usage.reported':
          if (options.omitReportedUsage) return;
          break;
        default:
          break;
      }
      batch.push(d);
    },
  });
  try {
    // One batch per network chunk; awaiting a full pipeline leaves the socket unread.
    for await (const chunk of response.body) {
      decoder.feed(chunk);
      const wait = flush();
      if (wait) await wait;
    }
  } catch (e) {
    // The connection broke mid-stream: what arrived is decoded, the rest is a truncation.
    if (options.signal.aborted) {
      decoder.end();
      await flush();
      throw options.signal.reason;
    }
    await flush();
    options.emit({
      type: 'diagnostic.raised',
      payload: {
        code: 'MINICODE_E_STREAM_BROKEN',
        message: `response stream broke: ${(e as Error).message}`,
        category: 'NETWORK_ERROR',
      },
      fidelity: 'synthetic',
    });
  }
  decoder.end();
  await flush();
  if (outcome === 'completed') {
    const reply: ProviderReply = { text: texts.join(''), toolCalls, reasoning };
    if (stopReason) reply.stopReason = stopReason;
    if (usage) reply.usage = usage;
    if (refusal !== undefined) reply.refusal = refusal;
    return reply;
  }
  if (outcome === 'error' && error) {
    const e: ErrorInfo = error;
    throw new ProviderCallError(
      e.message,
      e,
      e.recoverability === 'RETRYABLE',
      e.retryAfterMs,
      CONTEXT_LENGTH.test(e.message),
    );
  }
  const info: ErrorInfo = {
    category: 'PROVIDER_ERROR',
    code: 'MINICODE_E_STREAM_TRUNCATED',
    message: 'the response stream ended before the provider finished it',
    recoverability: 'RETRYABLE',
  };
  throw new ProviderCallError(info.message, info, true, undefined, false);
}

/** A Responses reasoning input item (no id: with `store: false` there is nothing to refer to). */
function responsesReasoningItem(encrypted: string, summary: string | undefined): Record<string, unknown> {
  return {
    type: 'reasoning',
    summary: summary ? [{ type: 'summary_text', text: summary }] : [],
    encrypted_content: encrypted,
  };
}
