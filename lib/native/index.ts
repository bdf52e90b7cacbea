import type { NativeDecoderFactory } from '../pipeline/types.js';

/** Native agent decoders by format name (`codex`, `claude-code`, `gemini-cli`, `opencode`, `terminal`). */
export const NATIVE_DECODERS: Partial<Record<string, NativeDecoderFactory>> = {};
