/**
 * The neutral conversation the agent loop keeps and every request builder reads. It holds what
 * a provider needs to continue: text, tool calls with their raw argument text, tool results,
 * and opaque reasoning items some providers require back verbatim (Anthropic thinking
 * signatures, OpenAI Responses reasoning items, Gemini thought signatures).
 */

import type { ProviderFormat } from '../decode/formats.js';
import { imagePlaceholder } from '../images/placeholder.js';

/** The wire formats minicode speaks (declared with the other format lists). */
export type { ProviderFormat };

/** One tool call the model made. `argumentsText` is the JSON text as streamed (may be invalid). */
export interface ToolCallPart {
  id: string;
  name: string;
  argumentsText: string;
  /** Gemini's `thoughtSignature` for this call, sent back on the same part. */
  signature?: string;
  /** A freeform (custom) tool's call: `argumentsText` is its raw input, not JSON (Responses `custom_tool_call`). */
  freeform?: boolean;
}

/**
 * A provider-specific item kept verbatim and sent back only to the format that produced it
 * (e.g. `{type:'thinking', thinking, signature}` for Anthropic, a `reasoning` item for Responses).
 */
export interface ReasoningItem {
  format: ProviderFormat;
  item: unknown;
}

/** An image in a user turn: its bytes as base64, typed from the bytes (lib/images). */
export interface ImagePart {
  mediaType: string;
  /** The bytes, base64 (what every provider format carries). */
  data: string;
  name: string;
  width: number;
  height: number;
}

/** A user turn, with the images it carries (`exec -i`, `read_image`'s result). */
export interface UserMessage {
  role: 'user';
  text: string;
  images?: ImagePart[];
  /** The images tools returned (read_image, MCP), sent as a user message after their results: not the person's task. */
  fromTools?: true;
}

/** The user message that shows the model the images a step's tools returned, right after the step's results. */
export function toolImagesMessage(images: readonly ImagePart[]): UserMessage {
  return {
    role: 'user',
    text: `The image${images.length === 1 ? '' : 's'} read: ${images.map(imagePlaceholder).join(' ')}`,
    images: [...images],
    fromTools: true,
  };
}

/** A model turn: text, tool calls, and reasoning items to replay. */
export interface AssistantMessage {
  role: 'assistant';
  text?: string;
  toolCalls?: ToolCallPart[];
  reasoning?: ReasoningItem[];
}

/** The result of one tool call, answering `toolCallId`. */
export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  name: string;
  content: string;
  isError?: boolean;
}

/** One message of the conversation. */
export type ConversationMessage = UserMessage | AssistantMessage | ToolMessage;

/** A tool as the provider sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  jsonSchema: Record<string, unknown>;
  /** The vendor's own tool entry (a model-native tool shape, lib/tools/shapes.ts), sent as it is in place of a function definition. */
  native?: Record<string, unknown>;
}

/** What a request is built from. */
export interface Conversation {
  system?: string;
  messages: ConversationMessage[];
  tools: ToolSpec[];
}

/** A decoded tool call as the conversation keeps it; a freeform tool's input is its own argument (a string, not JSON). */
export function toolCallOf(payload: {
  toolCallId: string;
  name: string;
  argumentsText: string;
  arguments?: unknown;
}): ToolCallPart {
  const call: ToolCallPart = { id: payload.toolCallId, name: payload.name, argumentsText: payload.argumentsText };
  if (typeof payload.arguments === 'string') call.freeform = true;
  return call;
}

/** Parse tool-call arguments for formats that want an object; invalid text becomes `{}`. */
export function argumentsObject(argumentsText: string): Record<string, unknown> {
  if (argumentsText.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(argumentsText);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    // Not JSON: malformed arguments become none (the tool says what is missing).
    return {};
  }
}
