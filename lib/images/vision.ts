/**
 * Which models take image input, as far as minicode knows, so that a run with images for a
 * model that takes none fails before its first request with a clear message (MINICODE_E_NO_VISION)
 * instead of a provider's 400. Known text-only model families are listed by name prefix; any
 * other model is assumed to take images (the provider's own answer then stands), since a wrong
 * refusal would block a model this table has not heard of.
 */
import { MinicodeError } from '../errors.js';

/** Name prefixes of models that take no image input (lower case). */
const TEXT_ONLY_PREFIXES: readonly string[] = [
  'gpt-3.5',
  'o1-mini',
  'o3-mini',
  'gpt-oss',
  'codex-mini',
  'deepseek',
  'qwen2.5-coder',
  'qwen3-coder',
  'codellama',
  'llama2',
  'llama3:',
  'llama3.1',
  'mistral:',
  'mixtral',
  'phi3',
  'starcoder',
];

/** False when `model` is known to take no images; true otherwise. */
export function acceptsImages(model: string): boolean {
  const name = model.toLowerCase().replace(/^.*\//, '');
  return !TEXT_ONLY_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** MINICODE_E_NO_VISION when images go to a model known to take none. */
export function checkVision(model: string, imageCount: number): void {
  if (imageCount === 0 || acceptsImages(model)) return;
  throw new MinicodeError(
    'MINICODE_E_NO_VISION',
    `model ${model} takes no image input; ${imageCount === 1 ? 'the image was' : `the ${imageCount} images were`} not sent`,
    {
      action: 'choose a model with vision (--model), or run without images',
    },
  );
}
