/**
 * What an image costs in context tokens, by each provider's published rule, so that the
 * context estimate (and with it compaction) sees images as the provider will count them, not
 * as their placeholder text. The rules work from the dimensions alone (lib/images reads them
 * from the bytes) and take the provider's own downscaling into account:
 *
 * - OpenAI (Chat Completions and Responses), by the `detail` minicode sends with every image
 *   (config `imageDetail`, default `auto`; lib/agent/requests): `low` is a fixed 85 tokens;
 *   `high` fits the image within 2048 x 2048, then scales its short side to 768, and each
 *   512 x 512 tile costs 170 tokens, plus 85. OpenAI documents `auto` only as the model choosing
 *   low or high from the image's size, with no threshold: it is counted as high, the bound an
 *   estimate that decides compaction needs.
 * - Anthropic: width x height / 750, after the long side is scaled to at most 1568 pixels; an
 *   image of more than about 1.15 megapixels is scaled down further, so no image counts for more
 *   than 1,600 tokens.
 * - Gemini: 258 tokens for an image of at most 384 pixels a side; a larger one is cut into
 *   768 x 768 tiles of 258 tokens each.
 * - Ollama: no rule holds across its models; counted as LLaVA's 576 (a 24 x 24 grid of image
 *   patches), the family most Ollama vision models follow.
 */
import type { ProviderFormat } from '../decode/formats.js';

/** The `detail` values OpenAI's image inputs take. */
export const OPENAI_IMAGE_DETAILS = ['low', 'high', 'auto'] as const;
/** How closely an OpenAI model looks at an image (and how many tokens it costs). */
export type OpenAiImageDetail = (typeof OPENAI_IMAGE_DETAILS)[number];
/** The detail sent when the config sets none: OpenAI's own default, sent explicitly. */
export const DEFAULT_OPENAI_IMAGE_DETAIL: OpenAiImageDetail = 'auto';

/** The figures of the rules above, named once. */
export const IMAGE_TOKEN_RULES = Object.freeze({
  openai: { fitSide: 2048, shortSide: 768, tile: 512, perTile: 170, base: 85, low: 85 },
  anthropic: { maxLongSide: 1568, pixelsPerToken: 750, maxTokens: 1600 },
  gemini: { smallSide: 384, tile: 768, perTile: 258 },
  ollama: { perImage: 576 },
});

/** OpenAI's rule: fixed for low detail, by 512-pixel tiles for high (and auto, see above). */
function openaiTokens(width: number, height: number, detail: OpenAiImageDetail): number {
  const r = IMAGE_TOKEN_RULES.openai;
  if (detail === 'low') return r.low;
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

/** Tokens an image of `width` x `height` pixels takes in a request of `format` (`detail`: what the OpenAI formats send; default {@link DEFAULT_OPENAI_IMAGE_DETAIL}). */
export function imageTokens(
  format: ProviderFormat,
  width: number,
  height: number,
  detail: OpenAiImageDetail = DEFAULT_OPENAI_IMAGE_DETAIL,
): number {
  // A corrupt header's zero or negative side still costs the provider's smallest figure.
  const w = Math.max(1, width);
  const h = Math.max(1, height);
  switch (format) {
    case 'openai-chat':
    case 'openai-responses':
      return openaiTokens(w, h, detail);
    case 'anthropic':
      return anthropicTokens(w, h);
    case 'gemini':
      return geminiTokens(w, h);
    case 'ollama':
      return IMAGE_TOKEN_RULES.ollama.perImage;
  }
}
