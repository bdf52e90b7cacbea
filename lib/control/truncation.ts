/**
 * The truncation layers (control-plane §6). Each layer caps with its own meaning and leaves a
 * visible marker saying how much it cut, so no layer loses text silently:
 *   producer cap (`capHeadTail` in lib/tools/truncate.ts: a tool's `maxOutputChars`, MCP 100k)
 *   -> kernel cap (4,096 tokens = 16,384 chars: 70% head + 30% tail)
 *   -> context insertion -> compaction -> termination.
 * The system prompt is capped upstream at 8,000 chars, before any of this.
 */
import { SYSTEM_PROMPT_MAX_CHARS } from './transcript.js';

/** Kernel cap on a tool result inserted into the context: 4,096 tokens. */
export const TOOL_RESULT_MAX_TOKENS = 4_096;
/** Characters per token the kernel cap assumes (4,096 tokens = 16,384 chars). */
export const KERNEL_CHARS_PER_TOKEN = 4;
/** Share of the kernel cap kept from the head; the rest comes from the tail. */
export const KERNEL_HEAD_SHARE = 0.7;

/** A capped text and what was cut. */
export interface Truncated {
  text: string;
  truncated: boolean;
  /** Characters removed (0 when nothing was). */
  removedChars: number;
}

const fmt = (n: number): string => n.toLocaleString('en-US');

/**
 * The kernel cap: a tool result longer than `maxTokens * 4` chars keeps 70% of the cap from the
 * head and 30% from the tail (errors and summaries tend to sit at the end), with a marker
 * between them.
 */
export function kernelTruncate(text: string, maxTokens: number = TOOL_RESULT_MAX_TOKENS): Truncated {
  const cap = maxTokens * KERNEL_CHARS_PER_TOKEN;
  if (text.length <= cap) return { text, truncated: false, removedChars: 0 };
  const head = Math.floor(cap * KERNEL_HEAD_SHARE);
  const tail = cap - head;
  const removed = text.length - cap;
  const marker = `\n[minicode: ${fmt(removed)} chars (~${fmt(Math.ceil(removed / KERNEL_CHARS_PER_TOKEN))} tokens) cut from the middle by the ${fmt(maxTokens)}-token tool result cap]\n`;
  return {
    text: text.slice(0, head) + marker + text.slice(text.length - tail),
    truncated: true,
    removedChars: removed,
  };
}

/** Cap the system prompt upstream (8,000 chars), with a marker. Never compacted afterwards. */
export function capSystemPrompt(text: string, cap: number = SYSTEM_PROMPT_MAX_CHARS): Truncated {
  if (text.length <= cap) return { text, truncated: false, removedChars: 0 };
  const removed = text.length - cap;
  return {
    text: `${text.slice(0, cap)}\n[minicode: system prompt truncated; ${fmt(removed)} chars cut]`,
    truncated: true,
    removedChars: removed,
  };
}
