/**
 * What the model sees of an MCP tool result: its text parts in order, each non-text part as a
 * one-line placeholder (an image or a binary resource never enters the text as base64),
 * bounded by the producer cap (100,000 characters, 70% head + 30% tail with a marker) while it
 * is collected, so a 5 MB result never becomes one 5 MB string. The kernel's own truncation
 * applies after this, as for every tool.
 *
 * Image parts are also shown to the model as images, as `read_image`'s are (after the step's
 * tool results): checked by lib/images from their bytes, not from the declared `mimeType`; one
 * that is no image or past a limit stays a placeholder saying why. A part's base64 is measured
 * before it is decoded, so an oversized image is never held as bytes.
 */
import { DEFAULT_IMAGE_LIMITS, imageFromBytes, type ImageAttachment } from '../images/load.js';
import { imagePlaceholder } from '../images/placeholder.js';
import { MinicodeError } from '../errors.js';
import { createBoundedCollector } from '../tools/truncate.js';

/** Producer cap of one MCP tool result, in characters. */
export const MCP_OUTPUT_MAX_CHARS = 100_000;

/** The parts of a `tools/call` result this module reads (the SDK validates the rest). */
export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** The decoded size of base64 text, its padding left out. */
function bytesOfBase64(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}

function sizeOfBase64(data: unknown): string {
  return typeof data === 'string' ? `${bytesOfBase64(data)} bytes` : 'unknown size';
}

/** An image part as an image to show (named `name`), or the reason it cannot be one. */
function imageOf(p: Record<string, unknown>, name: string): ImageAttachment | string {
  if (typeof p.data !== 'string') return 'no data';
  // base64 is 4 characters for 3 bytes: past the limit without decoding a byte.
  if (bytesOfBase64(p.data) > DEFAULT_IMAGE_LIMITS.maxBytes)
    return `over the ${DEFAULT_IMAGE_LIMITS.maxBytes}-byte image limit`;
  try {
    return imageFromBytes(Buffer.from(p.data, 'base64'), name);
  } catch (error) {
    if (error instanceof MinicodeError && error.code === 'MINICODE_E_IMAGE')
      return error.message.replace(`${name}: `, '');
    throw error;
  }
}

/** One content part as text: the text itself, or a placeholder naming what was left out (`image`: the part's image, already read). */
function partText(part: unknown, image?: ImageAttachment | string): string {
  if (!part || typeof part !== 'object') return '[unsupported content]';
  const p = part as Record<string, unknown>;
  switch (p.type) {
    case 'text':
      return typeof p.text === 'string' ? p.text : '';
    case 'image':
      if (image !== undefined && typeof image !== 'string') return `${imagePlaceholder(image)} (the image follows)`;
      return `[image ${String(p.mimeType ?? 'unknown type')}, ${sizeOfBase64(p.data)}, not shown${image ? `: ${image}` : ''}]`;
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

/** What the model gets of a result: its text (capped; `totalChars` is the length before the cap) and its images. */
export interface ResultContent {
  text: string;
  truncated: boolean;
  totalChars: number;
  images: ImageAttachment[];
}

/** The result's text and images for the model; images are named `<imageName>-<n>` with the extension of the type their bytes say. Default name `image`. */
export function resultContent(
  result: McpCallResult,
  options: { maxChars?: number; imageName?: string } = {},
): ResultContent {
  const collector = createBoundedCollector(options.maxChars ?? MCP_OUTPUT_MAX_CHARS);
  const parts = Array.isArray(result.content) ? result.content : [];
  const images: ImageAttachment[] = [];
  parts.forEach((part, i) => {
    if (i > 0) collector.push('\n');
    let image: ImageAttachment | string | undefined;
    if (part && typeof part === 'object' && (part as { type?: unknown }).type === 'image') {
      const name = `${options.imageName ?? 'image'}-${images.length + 1}`;
      image = imageOf(part as Record<string, unknown>, name);
      if (typeof image !== 'string') {
        image = { ...image, name: `${name}.${image.mediaType.replace('image/', '').replace('jpeg', 'jpg')}` };
        images.push(image);
      }
    }
    collector.push(partText(part, image));
  });
  // A result with only structured content still says something to the model.
  if (parts.length === 0 && result.structuredContent !== undefined)
    collector.push(JSON.stringify(result.structuredContent));
  return { ...collector.result(), images };
}

/** `text` with each configured secret value replaced (values the server config holds literally). */
export function maskValues(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[REDACTED]');
  return out;
}
