/**
 * What the model sees of an MCP tool result: its text parts in order, each non-text part as a
 * one-line placeholder (an image or a binary resource never enters the context as base64),
 * bounded by the producer cap (100,000 characters, 70% head + 30% tail with a marker) while it
 * is collected, so a 5 MB result never becomes one 5 MB string. The kernel's own truncation
 * applies after this, as for every tool.
 */
import { createBoundedCollector } from '../tools/truncate.js';

/** Producer cap of one MCP tool result, in characters. */
export const MCP_OUTPUT_MAX_CHARS = 100_000;

/** The parts of a `tools/call` result this module reads (the SDK validates the rest). */
export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

function sizeOfBase64(data: unknown): string {
  return typeof data === 'string' ? `${Math.floor((data.length * 3) / 4)} bytes` : 'unknown size';
}

/** One content part as text: the text itself, or a placeholder naming what was left out. */
function partText(part: unknown): string {
  if (!part || typeof part !== 'object') return '[unsupported content]';
  const p = part as Record<string, unknown>;
  switch (p.type) {
    case 'text':
      return typeof p.text === 'string' ? p.text : '';
    case 'image':
    case 'audio':
      return `[${p.type} ${String(p.mimeType ?? 'unknown type')}, ${sizeOfBase64(p.data)}, not shown]`;
    case 'resource_link':
      return `[resource link ${String(p.uri ?? '')}${p.name ? ` (${String(p.name)})` : ''}]`;
    case 'resource': {
      const r = (p.resource ?? {}) as Record<string, unknown>;
      const head = `[resource ${String(r.uri ?? '')}${r.mimeType ? ` ${String(r.mimeType)}` : ''}]`;
      if (typeof r.text === 'string') return `${head}\n${r.text}`;
      return `${head.slice(0, -1)}, ${sizeOfBase64(r.blob)} binary, not shown]`;
    }
    default:
      return `[${String(p.type ?? 'unknown')} content, not shown]`;
  }
}

/** The result's text for the model, capped; `totalChars` is the length before the cap. */
export function resultText(result: McpCallResult, maxChars: number = MCP_OUTPUT_MAX_CHARS): { text: string; truncated: boolean; totalChars: number } {
  const collector = createBoundedCollector(maxChars);
  const parts = Array.isArray(result.content) ? result.content : [];
  parts.forEach((part, i) => {
    if (i > 0) collector.push('\n');
    collector.push(partText(part));
  });
  // A result with only structured content still says something to the model.
  if (parts.length === 0 && result.structuredContent !== undefined) collector.push(JSON.stringify(result.structuredContent));
  return collector.result();
}

/** `text` with each configured secret value replaced (values the server config holds literally). */
export function maskValues(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[REDACTED]');
  return out;
}
