/**
 * The neutral transcript the agent loop keeps and the control plane measures and compacts.
 * Provider adapters translate it to their wire shapes; nothing here knows a provider.
 */

/** One tool call an assistant message requested. */
export interface ToolCall {
  id: string;
  name: string;
  /** The arguments exactly as the model produced them (JSON text, possibly malformed). */
  argumentsText: string;
}

/** A system message inside the transcript (rare: the system prompt itself is kept apart). */
export interface SystemMessage {
  role: 'system';
  text: string;
}

/**
 * An image a user message carries, as the control plane needs it: the placeholder that names it
 * (`[image shot.png 4x3 image/png]`) and what it costs in the provider's own count (lib/images/tokens.ts).
 */
export interface TranscriptImage {
  placeholder: string;
  tokens: number;
}

/** A user message. `pinned` marks a compaction summary: kept verbatim by later compactions. */
export interface UserMessage {
  role: 'user';
  text: string;
  pinned?: boolean;
  /** Images sent with it; a fold replaces them by their placeholders (lib/control/fold.ts). */
  images?: TranscriptImage[];
}

/** An assistant message: text, optional reasoning, and the tool calls it requested. */
export interface AssistantMessage {
  role: 'assistant';
  text: string;
  toolCalls?: ToolCall[];
  /** Reasoning text when the provider returns it; the first thing compaction drops. */
  reasoning?: string;
}

/** The result of one tool call, tied to it by `toolCallId`. */
export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  content: string;
}

/** Any transcript message. */
export type TranscriptMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** What the model sees besides the messages: fixed overhead, never compacted. */
export interface FixedContext {
  /** The system prompt (already capped upstream at {@link SYSTEM_PROMPT_MAX_CHARS}). */
  system: string;
  /** Tool schemas as JSON text, one per tool. */
  toolSchemas: string[];
}

/** Upper bound of the system prompt in characters, applied before the run starts. */
export const SYSTEM_PROMPT_MAX_CHARS = 8_000;

/**
 * A unit of compaction: messages that must stay together. An assistant message with tool calls
 * owns the tool results that answer it, so a fold never splits a call from its result.
 */
export interface TranscriptUnit {
  /** Index of the first message of the unit in the transcript. */
  start: number;
  /** One past the last message. */
  end: number;
}

/**
 * Group a transcript into units. Tool results directly following an assistant message whose
 * calls they answer join its unit; an orphan tool result (no matching call) is a unit alone.
 */
export function groupUnits(messages: readonly TranscriptMessage[]): TranscriptUnit[] {
  const units: TranscriptUnit[] = [];
  let i = 0;
  while (i < messages.length) {
    const m = messages[i] as TranscriptMessage;
    let end = i + 1;
    if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0) {
      const ids = new Set(m.toolCalls.map((c) => c.id));
      while (end < messages.length) {
        const next = messages[end] as TranscriptMessage;
        if (next.role !== 'tool' || !ids.has(next.toolCallId)) break;
        end++;
      }
    }
    units.push({ start: i, end });
    i = end;
  }
  return units;
}

/**
 * Check that an unknown value is a transcript message (used where messages cross a worker
 * boundary). Returns the message or undefined; never throws.
 */
export function asTranscriptMessage(value: unknown): TranscriptMessage | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  switch (v.role) {
    case 'system':
      return typeof v.text === 'string' ? (v as unknown as SystemMessage) : undefined;
    case 'user': {
      if (typeof v.text !== 'string') return undefined;
      if (v.images !== undefined) {
        if (!Array.isArray(v.images)) return undefined;
        for (const i of v.images as unknown[]) {
          const image = i as Record<string, unknown> | null;
          if (!image || typeof image.placeholder !== 'string' || typeof image.tokens !== 'number') return undefined;
        }
      }
      return v as unknown as UserMessage;
    }
    case 'tool':
      return typeof v.toolCallId === 'string' && typeof v.content === 'string'
        ? (v as unknown as ToolMessage)
        : undefined;
    case 'assistant': {
      if (typeof v.text !== 'string') return undefined;
      if (v.toolCalls !== undefined) {
        if (!Array.isArray(v.toolCalls)) return undefined;
        for (const c of v.toolCalls as unknown[]) {
          const call = c as Record<string, unknown> | null;
          if (
            !call ||
            typeof call.id !== 'string' ||
            typeof call.name !== 'string' ||
            typeof call.argumentsText !== 'string'
          ) {
            return undefined;
          }
        }
      }
      if (v.reasoning !== undefined && typeof v.reasoning !== 'string') return undefined;
      return v as unknown as AssistantMessage;
    }
    default:
      return undefined;
  }
}
