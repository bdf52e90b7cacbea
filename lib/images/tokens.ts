/**
 * What an image costs in context tokens, by each provider's published rule, so that the
 * context estimate (and with it compaction) sees images as the provider will count them, not
 * as their placeholder text. The rules work from the dimensions alone (lib/images reads them
 * from the bytes) and take the provider's own downscaling into account:
 *
 * - OpenAI (Chat Completions and Responses, `detail` high or auto): the image is fitted within
 *   2048 x 2048, then its short side scaled to 768; each 512 x 512 tile costs 170 tokens, plus
 *   85. `auto` may choose low detail (85 tokens): the high figure is the bound an estimate needs.
 * - Anthropic: width x height / 750, after the long side is scaled to at most 1568 pixels; an
 *   image of more than about 1.15 megapixels is scaled down further, so no image counts for more
 *   than 1,600 tokens.
 * - Gemini: 258 tokens for an image of at most 384 pixels a side; a larger one is cut into
 *   768 x 768 tiles of 258 tokens each.
 * - Ollama: no rule holds across its models; counted as LLaVA's 576 (a 24 x 24 grid of image
 *   patches), the family most Ollama vision models follow.
 */
import type { ProviderFormat } from '../decode/formats.js';

/** The figures of the rules above, named once. */
export const IMAGE_TOKEN_RULES = Object.freeze({
  openai: { fitSide: 2048, shortSide: 768, tile: 512, perTile: 170, base: 85 },
  anthropic: { maxLongSide: 1568, pixelsPerToken: 750, maxTokens: 1600 },
  gemini: { smallSide: 384, tile: 768, perTile: 258 },
  ollama: { perImage: 576 },
});

/** OpenAI's high-detail tile count rule. */
function openaiTokens(width: number, height: number): number {
  const r = IMAGE_TOKEN_RULES.openai;
  let w = width;
  let h = height;
  const fit = Math.min(1, r.fitSide / Math.max(w, h));
  w *= fit;
  h *= fit;
  const short = Math.min(1, r.shortSide / Math.min(w, h));
  w *= short;
  h *= short;
  return r.base + r.perTile * Math.ceil(w / r.tile) * Math.ceil(h / r.tile);
}

/** Anthropic's pixels / 750 rule, after its downscaling. */
function anthropicTokens(width: number, height: number): number {
  const r = IMAGE_TOKEN_RULES.anthropic;
  const scale = Math.min(1, r.maxLongSide / Math.max(width, height));
  return Math.min(r.maxTokens, Math.ceil((width * scale * height * scale) / r.pixelsPerToken));
}

/** Gemini's 258 per image or per 768-pixel tile. */
function geminiTokens(width: number, height: number): number {
  const r = IMAGE_TOKEN_RULES.gemini;
  if (width <= r.smallSide && height <= r.smallSide) return r.perTile;
  return r.perTile * Math.ceil(width / r.tile) * Math.ceil(height / r.tile);
}

/** Tokens an image of `width` x `height` pixels takes in a request of `format`. */
export function imageTokens(format: ProviderFormat, width: number, height: number): number {
  // A corrupt header's zero or negative side still costs the provider's smallest figure.
  const w = Math.max(1, width);
  const h = Math.max(1, height);
  switch (format) {
    case 'openai-chat':
    case 'openai-responses':
      return openaiTokens(w, h);
    case 'anthropic':
      return anthropicTokens(w, h);
    case 'gemini':
      return geminiTokens(w, h);
    case 'ollama':
      return IMAGE_TOKEN_RULES.ollama.perImage;
  }
}
