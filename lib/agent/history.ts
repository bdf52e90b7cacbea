/**
 * The conversation of a stored session, rebuilt from its durable events, so a session loaded in
 * a fresh process (ACP `session/load`) can take further prompts. It is the conversation as the
 * events tell it: user prompts, the model's text and tool calls per step, and each tool's
 * result as the model saw it (the images of user messages and tool results read back from the
 * content store), with two honest losses: tool outputs are the events' bounded excerpts (4,096 chars, not the model's 20,000), and provider reasoning items are not kept
 * (their opaque signatures are only valid within the process that received them). A stored
 * mechanical compaction (`context.compacted` with its kept and removed units) is folded again at
 * its place, so the session goes on from the compacted conversation, not the whole one.
 */
import type { OutputEvent, StoredImage } from '../events/index.js';
import { imagePlaceholder } from '../images/placeholder.js';
import { foldTranscript } from '../control/fold.js';
import { fromTranscript, toTranscript } from './context.js';
import type { EventStore } from '../store/store.js';
import {
  toolCallOf,
  type AssistantMessage,
  type ConversationMessage,
  type ImagePart,
  type ToolCallPart,
  toolImagesMessage,
} from './conversation.js';

/** What the rebuild tells a caller that continues the session. */
export interface StoredConversation {
  messages: ConversationMessage[];
  /** The next turn number (one past the highest turn seen). */
  nextTurn: number;
  /** The next sequence number of the session. */
  nextSeq: number;
}

/** Content for a tool that never reported a result (the process stopped, or the turn was cut). */
const NO_RESULT = 'Cancelled: no result was recorded for this tool call';

/**
 * Rebuild the conversation of one session from its stored events, in order. Pure, given
 * `imageBytes`: the bytes of an image (a user message's, or one a tool returned) by its content
 * ref (the store's content store); an image without bytes (none given, evicted) is named in the
 * text instead, never dropped unsaid.
 */
export function conversationFromEvents(
  events: Iterable<OutputEvent>,
  imageBytes?: (ref: string) => Uint8Array | undefined,
): StoredConversation {
  /** The images whose bytes are still there, and the placeholders of those that are not. */
  const readImages = (images: readonly StoredImage[]): { kept: ImagePart[]; lost: string[] } => {
    const kept: ImagePart[] = [];
    const lost: string[] = [];
    for (const image of images) {
      const bytes = imageBytes?.(image.content.ref);
      if (bytes)
        kept.push({
          mediaType: image.mediaType,
          data: Buffer.from(bytes).toString('base64'),
          name: image.name,
          width: image.width,
          height: image.height,
        });
      else lost.push(imagePlaceholder(image));
    }
    return { kept, lost };
  };
  const userMessage = (text: string, images: readonly StoredImage[] | undefined): ConversationMessage => {
    if (!images || images.length === 0) return { role: 'user', text };
    const { kept, lost } = readImages(images);
    const note = lost.length > 0 ? `\n\n${lostNote(lost)}` : '';
    return kept.length > 0
      ? { role: 'user', text: `${text}${note}`, images: kept }
      : { role: 'user', text: `${text}${note}` };
  };
  /** The images each tool call returned, by call id: shown again after the step's results, as the loop showed them. */
  const toolImages = new Map<string, { kept: ImagePart[]; lost: string[] }>();
  const messages: ConversationMessage[] = [];
  let assistant: AssistantMessage | undefined;
  let assistantKey: string | undefined;
  let maxTurn = 0;
  let nextSeq = 0;
  /** The assistant message of a step: one per provider response (turn and step). */
  const stepMessage = (event: OutputEvent): AssistantMessage => {
    const key = `${event.turnId ?? 0}:${event.stepId ?? 0}`;
    if (!assistant || key !== assistantKey) {
      assistant = { role: 'assistant' };
      assistantKey = key;
      messages.push(assistant);
    }
    return assistant;
  };
  for (const event of events) {
    nextSeq = Math.max(nextSeq, event.seq + 1);
    if (event.turnId !== undefined) maxTurn = Math.max(maxTurn, event.turnId);
    switch (event.type) {
      case 'user.message.received':
        assistant = undefined;
        messages.push(userMessage(event.payload.text, event.payload.images));
        break;
      case 'assistant.message.completed':
      case 'assistant.message.truncated': {
        if (event.payload.text === '') break;
        const message = stepMessage(event);
        message.text = (message.text ?? '') + event.payload.text;
        break;
      }
      case 'assistant.tool_call.completed': {
        const message = stepMessage(event);
        const call: ToolCallPart = toolCallOf(event.payload);
        message.toolCalls = [...(message.toolCalls ?? []), call];
        break;
      }
      case 'tool.completed':
        if (event.payload.images?.length) toolImages.set(event.payload.toolCallId, readImages(event.payload.images));
        messages.push({
          role: 'tool',
          toolCallId: event.payload.toolCallId,
          name: event.payload.name ?? 'tool',
          content: event.payload.output ?? event.payload.summary,
        });
        break;
      case 'tool.failed': {
        const parts = [`Error: ${event.payload.message}`];
        if (event.payload.hint) parts.push(`Hint: ${event.payload.hint}`);
        if (event.payload.output) parts.push(event.payload.output);
        messages.push({
          role: 'tool',
          toolCallId: event.payload.toolCallId,
          name: event.payload.name ?? 'tool',
          content: parts.join('\n'),
          isError: true,
        });
        break;
      }
      case 'tool.denied':
        messages.push({
          role: 'tool',
          toolCallId: event.payload.toolCallId,
          name: event.payload.name ?? 'tool',
          content: `Denied: ${event.payload.reason}`,
          isError: true,
        });
        break;
      case 'context.compacted': {
        const { keepRecentUnits, removedUnits } = event.payload;
        if (keepRecentUnits === undefined) break;
        // The conversation so far, folded as the compaction folded it then: the session goes on from there.
        const folded = refold(pairToolResults(messages, toolImages), keepRecentUnits, removedUnits ?? 0);
        toolImages.clear();
        messages.splice(0, messages.length, ...folded);
        assistant = undefined;
        break;
      }
      case 'tool.cancelled':
        messages.push({
          role: 'tool',
          toolCallId: event.payload.toolCallId,
          name: event.payload.name ?? 'tool',
          content: 'Cancelled: the run was stopped',
          isError: true,
        });
        break;
      default:
        break;
    }
  }
  return { messages: pairToolResults(messages, toolImages), nextTurn: maxTurn + 1, nextSeq };
}

/** The image bytes {@link conversationFromEvents} reads: those the store's content store still holds. */
export function storedImageBytes(store: Pick<EventStore, 'getContent'>): (ref: string) => Uint8Array | undefined {
  return (ref) => {
    const found = store.getContent(ref);
    return found.status === 'present' ? found.bytes : undefined;
  };
}

/** `messages` folded again as a stored mechanical compaction folded them (its kept and removed units). */
function refold(messages: ConversationMessage[], keepRecentUnits: number, removeUnits: number): ConversationMessage[] {
  // The format only prices images, which a fold by unit counts does not read.
  const fold = foldTranscript(toTranscript(messages, 'openai-chat'), { keepRecentUnits, removeUnits });
  return fold.changed ? fromTranscript(fold.messages, messages) : messages;
}

/** What a rebuilt message says of images whose bytes are gone. */
function lostNote(lost: readonly string[]): string {
  return `(not available any more: ${lost.join(' ')})`;
}

/**
 * Every provider wants each tool call answered right after the message that made it: place each
 * result there, answer calls that have none with {@link NO_RESULT}, and drop results whose call
 * is not in the conversation. The images the step's tools returned follow its results in one
 * user message, as the loop sent them.
 */
function pairToolResults(
  messages: ConversationMessage[],
  toolImages: ReadonlyMap<string, { kept: ImagePart[]; lost: string[] }>,
): ConversationMessage[] {
  const results = new Map<string, ConversationMessage>();
  for (const m of messages) if (m.role === 'tool' && !results.has(m.toolCallId)) results.set(m.toolCallId, m);
  const out: ConversationMessage[] = [];
  for (const m of messages) {
    if (m.role === 'tool') continue;
    out.push(m);
    if (m.role !== 'assistant') continue;
    const kept: ImagePart[] = [];
    const lost: string[] = [];
    for (const call of m.toolCalls ?? []) {
      out.push(
        results.get(call.id) ?? {
          role: 'tool',
          toolCallId: call.id,
          name: call.name,
          content: NO_RESULT,
          isError: true,
        },
      );
      const images = toolImages.get(call.id);
      if (images) {
        kept.push(...images.kept);
        lost.push(...images.lost);
      }
    }
    if (kept.length > 0) {
      const shown = toolImagesMessage(kept);
      out.push(lost.length > 0 ? { ...shown, text: `${shown.text}\n\n${lostNote(lost)}` } : shown);
    } else if (lost.length > 0)
      out.push({ role: 'user', text: `The tools returned images ${lostNote(lost)}`, fromTools: true });
  }
  return out;
}
