import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { PromptPart } from './agent-port.js';

/**
 * The prompt blocks the port sees. Text, resource links, embedded text resources and (when the
 * agent advertises `promptCapabilities.image`, `images` true) images are kept; audio and binary
 * resources are dropped (the agent does not advertise them, so a conforming client does not
 * send them).
 */
export function promptParts(blocks: ContentBlock[], images = false): PromptPart[] {
  const parts: PromptPart[] = [];
  for (const block of blocks) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image') {
      if (images)
        parts.push(
          block.uri
            ? { type: 'image', data: block.data, mimeType: block.mimeType, uri: block.uri }
            : { type: 'image', data: block.data, mimeType: block.mimeType },
        );
    } else if (block.type === 'resource_link') parts.push({ type: 'resource_link', uri: block.uri, name: block.name });
    else if (block.type === 'resource') {
      const r = block.resource;
      const part: PromptPart = { type: 'resource', uri: r.uri };
      if ('text' in r && typeof r.text === 'string') part.text = r.text;
      if (typeof r.mimeType === 'string') part.mimeType = r.mimeType;
      parts.push(part);
    }
  }
  return parts;
}

/** The prompt as one text: text blocks as they are, links as `@uri`, embedded text in a fenced block (images go beside it, as parts). */
export function promptText(blocks: ContentBlock[]): string {
  const pieces: string[] = [];
  for (const part of promptParts(blocks)) {
    if (part.type === 'text') pieces.push(part.text);
    else if (part.type === 'image') continue;
    else if (part.type === 'resource_link') pieces.push(`@${part.uri}`);
    else if (part.text !== undefined) pieces.push(`<resource uri="${part.uri}">\n${part.text}\n</resource>`);
    else pieces.push(`@${part.uri}`);
  }
  return pieces.join('\n');
}
