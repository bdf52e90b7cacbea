import fs from 'node:fs/promises';
import type { z } from 'zod';
import { imageFromBytes, DEFAULT_IMAGE_LIMITS } from '../images/load.js';
import { imagePlaceholder } from '../images/placeholder.js';
import { MinicodeError } from '../errors.js';
import { INPUT_JSON_SCHEMAS } from './input-json-schemas.js';
import { ReadImageInput } from './input-schemas.js';
import { confinePath, fsFailure, isOutcome } from './paths.js';
import type { Tool } from './types.js';

type Input = z.infer<typeof ReadImageInput>;
const JSON_SCHEMA = INPUT_JSON_SCHEMAS.read_image!;

/**
 * `read_image`: show the model an image of the workspace (a screenshot, a diagram, a rendered
 * page). The type comes from the bytes (PNG, JPEG, GIF, WebP); past the size or pixel limit the
 * image is refused with a message saying by how much (minicode does not resize). The tool's
 * text result is only the placeholder (name, dimensions, type): the image itself goes to the
 * model in the message after the tool results, so its textual footprint stays far below the
 * kernel's cap on a tool result.
 */
export const readImageTool: Tool<Input> = {
  name: 'read_image',
  description:
    'Look at an image file in the workspace (PNG, JPEG, GIF or WebP, at most 5 MiB and 8000 px a side): screenshots, diagrams, rendered output.',
  inputSchema: ReadImageInput,
  jsonSchema: JSON_SCHEMA,
  kind: 'read',
  gated: false,
  title: (input) => input.path,
  async run(input, ctx) {
    const resolved = await confinePath(ctx, 'read_image', input.path, 'read');
    if (isOutcome(resolved)) return resolved;
    let bytes: Buffer;
    try {
      const stat = await fs.stat(resolved.absolute);
      if (stat.size > DEFAULT_IMAGE_LIMITS.maxBytes) {
        return {
          status: 'failed',
          cause: 'USER_ERROR',
          message: `${input.path}: ${stat.size} bytes is over the ${DEFAULT_IMAGE_LIMITS.maxBytes}-byte image limit`,
          hint: 'minicode does not resize images; ask the user for a smaller one',
        };
      }
      bytes = await fs.readFile(resolved.absolute);
    } catch (error) {
      return fsFailure(error, input.path);
    }
    try {
      const image = imageFromBytes(bytes, input.path);
      return {
        status: 'completed',
        summary: imagePlaceholder(image),
        output: `${imagePlaceholder(image)} (the image follows)`,
        receipt: { bytes: bytes.length },
        images: [image],
      };
    } catch (error) {
      if (!(error instanceof MinicodeError)) throw error;
      return {
        status: 'failed',
        cause: 'USER_ERROR',
        message: error.message,
        ...(error.action ? { hint: error.action } : {}),
      };
    }
  },
};
