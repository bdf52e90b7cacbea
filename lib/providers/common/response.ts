/**
 * The provider-neutral half of every decoder: one model response's lifecycle turned into draft
 * events with the output conventions the reducer and renderers rely on. Provider decoders map
 * their wire records onto these calls and never build events themselves.
 *
 * Conventions kept here (so that they are the same for every provider):
 * - `model.response.started` once per response; `model.response.completed` exactly once, with
 *   the accumulated, normalised usage;
 * - text, reasoning and tool calls are keyed by a provider-scoped key (block index, output
 *   index, choice + slot): the first id seen for a key is kept, later (rotated) ids are ignored;
 * - a response that ends badly closes open messages as `assistant.message.truncated` and never
 *   completes an open tool call (its arguments may be cut: it must not run);
 * - decoded events carry fidelity `native`; what we infer (truncation, diagnostics) `synthetic`.
 */
import type { EventDraft, ErrorInfo, StopReason, Usage } from '../../events/index.js';
import type { EventSink } from '../../decode/types.js';
import type { ErrorCode } from '../../errors.js';
import { DECODE_CODES, excerpt } from './codes.js';

/** Options of {@link createResponseEmitter}. */
export interface ResponseEmitterOptions {
  onEvent: EventSink;
  /** Provider name put on `model.response.started` (e.g. `anthropic`). */
  provider: string;
  /** Longest accumulated text kept per message or reasoning block, in UTF-16 units; default 4 MiB. */
  maxTextChars?: number;
}

/** Where a diagnostic points in the input. */
export interface Where {
  excerpt?: string;
  line?: number;
  offset?: number;
}

interface Accumulator {
  pieces: string[];
  length: number;
  capped: boolean;
}

interface OpenMessage extends Accumulator {
  messageId: string;
  refusal: string[] | undefined;
}

interface OpenReasoning extends Accumulator {
  reasoningId: string;
  signature: string | undefined;
}

interface OpenToolCall {
  toolCallId: string;
  name: string;
  pieces: string[];
  executor: 'server' | undefined;
}

/** How a response ended. */
export type Outcome = 'completed' | 'truncated' | 'error';

/** Create the emitter for one input stream (which may hold several responses in sequence). */
export function createResponseEmitter(options: ResponseEmitterOptions): ResponseEmitter {
  return new ResponseEmitter(options);
}

/**
 * The response lifecycle helper a decoder drives. A class, not an object literal of closures:
 * one is made per input stream, and a literal with getters is built in dictionary mode (slow to
 * create, and every `r.method` call then does a hash lookup).
 */
export class ResponseEmitter {
  private readonly onEvent: EventSink;
  private readonly provider: string;
  private readonly maxText: number;
  private cycle = 0;
  private _started = false;
  private _finished = false;
  private _errored = false;
  private _responseId: string | undefined = undefined;
  private model: string | undefined = undefined;
  private _usage: Usage | undefined = undefined;
  private ordinal = 0;
  private _toolCallsCompleted = 0;
  private readonly messages = new Map<string, OpenMessage>();
  private readonly reasonings = new Map<string, OpenReasoning>();
  private readonly tools = new Map<string, OpenToolCall>();

  constructor(options: ResponseEmitterOptions) {
    this.onEvent = options.onEvent;
    this.provider = options.provider;
    this.maxText = options.maxTextChars ?? 4 * 1024 * 1024;
    if (!(this.maxText > 0)) throw new TypeError('createResponseEmitter: maxTextChars must be positive');
  }

  private emit(e: EventDraft): void {
    this.onEvent(e);
  }

  private prefix(): string {
    return this._responseId ?? `response-${this.cycle}`;
  }

  private accumulate(acc: Accumulator, delta: string): void {
    if (acc.capped) return;
    if (acc.length + delta.length > this.maxText) {
      acc.capped = true;
      this.diagnostic(
        DECODE_CODES.TEXT_CAPPED,
        `accumulated text exceeded ${this.maxText} characters; the rest is dropped from the final text`,
      );
      return;
    }
    acc.pieces.push(delta);
    acc.length += delta.length;
  }

  private ensureStarted(): void {
    if (this._started) return;
    this._started = true;
    const payload: { responseId?: string; model?: string; provider: string } = { provider: this.provider };
    if (this._responseId !== undefined) payload.responseId = this._responseId;
    if (this.model !== undefined) payload.model = this.model;
    this.emit({ type: 'model.response.started', payload, fidelity: 'native' });
  }

  /** A `diagnostic.raised` event (fidelity synthetic) pointing at `where` in the input. */
  diagnostic(code: ErrorCode, message: string, where: Where = {}): void {
    const payload: { code: string; message: string; excerpt?: string; line?: number; offset?: number } = {
      code,
      message,
    };
    if (where.excerpt !== undefined) payload.excerpt = excerpt(where.excerpt);
    if (where.line !== undefined) payload.line = where.line;
    if (where.offset !== undefined && where.offset >= 0) payload.offset = where.offset;
    this.emit({ type: 'diagnostic.raised', payload, fidelity: 'synthetic' });
  }

  private openMessage(key: string, id?: string): OpenMessage {
    let m = this.messages.get(key);
    if (!m) {
      this.ensureStarted();
      m = {
        messageId: id ?? `${this.prefix()}:message-${++this.ordinal}`,
        pieces: [],
        length: 0,
        capped: false,
        refusal: undefined,
      };
      this.messages.set(key, m);
    }
    return m;
  }

  private completeMessage(key: string): void {
    const m = this.messages.get(key);
    if (!m) return;
    this.messages.delete(key);
    const payload: { messageId: string; text: string; refusal?: string } = {
      messageId: m.messageId,
      text: m.pieces.join(''),
    };
    if (m.refusal) payload.refusal = m.refusal.join('');
    this.emit({ type: 'assistant.message.completed', payload, fidelity: 'native' });
  }

  private openReasoning(key: string, id?: string): OpenReasoning {
    let r = this.reasonings.get(key);
    if (!r) {
      this.ensureStarted();
      r = {
        reasoningId: id ?? `${this.prefix()}:reasoning-${++this.ordinal}`,
        pieces: [],
        length: 0,
        capped: false,
        signature: undefined,
      };
      this.reasonings.set(key, r);
    }
    return r;
  }

  private completeReasoning(key: string, opaque?: { data?: string; redacted?: boolean }): void {
    const r = this.reasonings.get(key);
    if (!r) return;
    this.reasonings.delete(key);
    const payload: { reasoningId: string; text?: string; signature?: string; redacted?: boolean; data?: string } = {
      reasoningId: r.reasoningId,
    };
    if (r.length > 0) payload.text = r.pieces.join('');
    if (r.signature !== undefined) payload.signature = r.signature;
    if (opaque?.redacted) payload.redacted = true;
    if (opaque?.data !== undefined) payload.data = opaque.data;
    this.emit({ type: 'assistant.reasoning.completed', payload, fidelity: 'native' });
  }

  private completeTool(key: string, whole?: { argumentsText: string; arguments?: unknown }): void {
    const t = this.tools.get(key);
    if (!t) return;
    this.tools.delete(key);
    const argumentsText = whole ? whole.argumentsText : t.pieces.join('');
    const payload: {
      toolCallId: string;
      name: string;
      argumentsText: string;
      arguments?: unknown;
      argumentsError?: string;
      executor?: 'server';
    } = { toolCallId: t.toolCallId, name: t.name, argumentsText };
    if (whole && 'arguments' in whole) payload.arguments = whole.arguments;
    else if (argumentsText.trim() === '')
      payload.arguments = {}; // a no-argument tool sends nothing (Anthropic `""`)
    else {
      try {
        payload.arguments = JSON.parse(argumentsText) as unknown;
      } catch (error) {
        payload.argumentsError = error instanceof Error ? error.message : String(error);
      }
    }
    if (t.executor) payload.executor = t.executor;
    this._toolCallsCompleted++;
    this.emit({ type: 'assistant.tool_call.completed', payload, fidelity: 'native', correlationId: t.toolCallId });
  }

  /**
   * Settle the response: close what is open and emit `model.response.completed` once. A
   * `completed` outcome completes open items; `truncated`/`error` truncate open messages and
   * leave open tool calls uncompleted (with a diagnostic).
   */
  finish(outcome: Outcome, stop?: { stopReason?: StopReason | undefined; rawStopReason?: string | undefined }): void {
    if (this._finished) return;
    this.ensureStarted();
    if (this._errored && outcome !== 'error') outcome = 'error';
    this._finished = true;
    const synthetic = outcome === 'truncated';
    if (outcome === 'completed') {
      for (const key of [...this.reasonings.keys()]) this.completeReasoning(key);
      for (const key of [...this.messages.keys()]) this.completeMessage(key);
      for (const key of [...this.tools.keys()]) this.completeTool(key);
    } else {
      for (const m of this.messages.values()) {
        this.emit({
          type: 'assistant.message.truncated',
          payload: { messageId: m.messageId, text: m.pieces.join(''), reason: 'stream-ended' },
          fidelity: 'synthetic',
        });
      }
      for (const t of this.tools.values())
        this.diagnostic(
          DECODE_CODES.TOOL_CALL_UNFINISHED,
          `tool call ${t.name || '?'} (${t.toolCallId}) never finished; it is not completed`,
        );
      this.messages.clear();
      this.reasonings.clear();
      this.tools.clear();
    }
    const payload: {
      responseId?: string;
      outcome: Outcome;
      stopReason?: StopReason;
      rawStopReason?: string;
      usage?: Usage;
    } = { outcome };
    if (this._responseId !== undefined) payload.responseId = this._responseId;
    let stopReason = stop?.stopReason;
    if (stopReason === undefined && outcome === 'error') stopReason = 'error';
    if (stopReason !== undefined) payload.stopReason = stopReason;
    if (stop?.rawStopReason !== undefined) payload.rawStopReason = stop.rawStopReason;
    if (this._usage !== undefined) payload.usage = this._usage;
    if (stopReason === 'max_tokens' && outcome === 'completed') {
      this.emit({
        type: 'limit.reached',
        payload: { kind: 'max-tokens', message: 'the response stopped at its output token limit' },
        fidelity: 'native',
      });
    }
    this.emit({ type: 'model.response.completed', payload, fidelity: synthetic ? 'synthetic' : 'native' });
  }

  /** Record what is known about the response; emits `model.response.started` once. */
  started(info: { responseId?: string | undefined; model?: string | undefined } = {}): void {
    if (info.responseId && this._responseId === undefined) this._responseId = info.responseId;
    if (info.model && this.model === undefined) this.model = info.model;
    this.ensureStarted();
  }

  /** Fill in ids learnt after the start (e.g. a Gemini responseId) without a second start event. */
  learn(info: { responseId?: string | undefined; model?: string | undefined }): void {
    if (info.responseId && this._responseId === undefined) this._responseId = info.responseId;
    if (info.model && this.model === undefined) this.model = info.model;
  }

  textDelta(key: string, delta: string, id?: string): void {
    if (delta === '') return;
    const m = this.openMessage(key, id);
    this.accumulate(m, delta);
    this.emit({ type: 'assistant.message.delta', payload: { messageId: m.messageId, delta }, fidelity: 'native' });
  }

  /** A refusal fragment: kept on the message's `refusal`, not shown as text. */
  refusalDelta(key: string, delta: string, id?: string): void {
    if (delta === '') return;
    (this.openMessage(key, id).refusal ??= []).push(delta);
  }

  hasMessage(key: string): boolean {
    return this.messages.has(key);
  }

  /** Complete the message under `key` (nothing when none is open). */
  textDone(key: string): void {
    this.completeMessage(key);
  }

  reasoningDelta(key: string, delta: string, id?: string): void {
    if (delta === '') return;
    const r = this.openReasoning(key, id);
    this.accumulate(r, delta);
    this.emit({
      type: 'assistant.reasoning.delta',
      payload: { reasoningId: r.reasoningId, delta },
      fidelity: 'native',
    });
  }

  /** An opaque signature for the reasoning under `key` (kept verbatim, concatenated if streamed). */
  reasoningSignature(key: string, signature: string, id?: string): void {
    const r = this.openReasoning(key, id);
    r.signature = (r.signature ?? '') + signature;
  }

  hasReasoning(key: string): boolean {
    return this.reasonings.has(key);
  }

  /** Close the reasoning under `key`; `opaque` carries redacted / encrypted data. */
  reasoningDone(key: string, opaque?: { data?: string; redacted?: boolean }, id?: string): void {
    if (opaque && !this.reasonings.has(key)) this.openReasoning(key, id);
    this.completeReasoning(key, opaque);
  }

  /** Open a tool call under `key`; a second start for an open key keeps the first id. */
  toolStart(
    key: string,
    call: {
      id?: string | undefined;
      name?: string | undefined;
      index?: number | undefined;
      executor?: 'server' | undefined;
    },
  ): string {
    const open = this.tools.get(key);
    if (open) {
      if (!open.name && call.name) open.name = call.name;
      return open.toolCallId;
    }
    this.ensureStarted();
    const toolCallId = call.id || `${this.prefix()}:call-${++this.ordinal}`;
    this.tools.set(key, { toolCallId, name: call.name ?? '', pieces: [], executor: call.executor });
    const payload: { toolCallId: string; name: string; index?: number; executor?: 'server' } = {
      toolCallId,
      name: call.name ?? '',
    };
    if (call.index !== undefined && call.index >= 0) payload.index = call.index;
    if (call.executor) payload.executor = call.executor;
    this.emit({ type: 'assistant.tool_call.started', payload, fidelity: 'native', correlationId: toolCallId });
    return toolCallId;
  }

  hasTool(key: string): boolean {
    return this.tools.has(key);
  }

  toolDelta(key: string, delta: string): void {
    const t = this.tools.get(key);
    if (!t || delta === '') return;
    t.pieces.push(delta);
    this.emit({
      type: 'assistant.tool_call.delta',
      payload: { toolCallId: t.toolCallId, delta },
      fidelity: 'native',
      correlationId: t.toolCallId,
    });
  }

  /** Complete the tool call under `key`; `whole` overrides the accumulated text (whole-call providers). */
  toolDone(key: string, whole?: { argumentsText: string; arguments?: unknown }): void {
    this.completeTool(key, whole);
  }

  /** A server-side tool's result (e.g. Anthropic code execution) as tool.started/tool.completed. */
  serverToolResult(toolCallId: string, name: string, summary: string, output?: string): void {
    this.emit({
      type: 'tool.started',
      payload: { toolCallId, name, executor: 'server' },
      fidelity: 'native',
      correlationId: toolCallId,
    });
    const payload: { toolCallId: string; name: string; summary: string; output?: string } = {
      toolCallId,
      name,
      summary,
    };
    if (output !== undefined) payload.output = excerpt(output);
    this.emit({ type: 'tool.completed', payload, fidelity: 'native', correlationId: toolCallId });
  }

  /** Report usage totals so far; fields merge into the running totals (a missing field stays as it was). */
  usage(reported: Usage): void {
    let any = false;
    for (const k in reported) if (reported[k as keyof Usage] !== undefined) any = true;
    if (!any) return;
    this.ensureStarted();
    this._usage = { ...this._usage, ...reported };
    this.emit({
      type: 'usage.reported',
      payload: { usage: reported, cumulative: true, scope: 'request' },
      fidelity: 'native',
    });
  }

  /** An in-band error; overloaded / rate-limited errors also raise `limit.reached`. */
  error(error: ErrorInfo, limit?: 'rate-limit' | 'overloaded' | 'usage-quota' | 'context-length'): void {
    this.ensureStarted();
    this._errored = true;
    this.emit({ type: 'error.raised', payload: { error }, fidelity: 'native' });
    if (limit) {
      const payload: { kind: typeof limit; message: string; retryAfterMs?: number } = {
        kind: limit,
        message: error.message,
      };
      if (error.retryAfterMs !== undefined) payload.retryAfterMs = error.retryAfterMs;
      this.emit({ type: 'limit.reached', payload, fidelity: 'native' });
    }
  }

  /** Abandon everything open without completing it (spliced generations). */
  abandonOpen(reason: string): void {
    for (const m of this.messages.values()) {
      this.emit({
        type: 'assistant.message.truncated',
        payload: { messageId: m.messageId, text: m.pieces.join(''), reason: 'aborted' },
        fidelity: 'synthetic',
      });
    }
    for (const t of this.tools.values())
      this.diagnostic(DECODE_CODES.TOOL_CALL_UNFINISHED, `tool call ${t.name} (${t.toolCallId}) abandoned: ${reason}`);
    this.messages.clear();
    this.reasonings.clear();
    this.tools.clear();
  }

  /** The input ended: a response not finished by its terminator is truncated (or error). */
  endOfStream(): void {
    if (this._finished) return;
    this.finish(this._errored ? 'error' : 'truncated');
  }

  /** Begin the next response of a multi-response input (after a terminator). */
  nextResponse(): void {
    this.cycle++;
    this._started = false;
    this._finished = false;
    this._errored = false;
    this._responseId = undefined;
    this.model = undefined;
    this._usage = undefined;
    this._toolCallsCompleted = 0;
    this.messages.clear();
    this.reasonings.clear();
    this.tools.clear();
  }

  get isStarted(): boolean {
    return this._started;
  }

  get responseId(): string | undefined {
    return this._responseId;
  }

  get finished(): boolean {
    return this._finished;
  }

  get errored(): boolean {
    return this._errored;
  }

  /** Tool calls completed in this response (to infer `tool_use` where the provider says `stop`). */
  get toolCallsCompleted(): number {
    return this._toolCallsCompleted;
  }

  get openToolCalls(): number {
    return this.tools.size;
  }
}
