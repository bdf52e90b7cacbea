import type { NativeFormat } from '../decode/formats.js';
import type { DecoderOptions, NativeDecoderFactory } from '../decode/types.js';
import { createClaudeCodeDecoder } from './claude-code.js';
import { createCodexDecoder } from './codex.js';
import { createGeminiCliDecoder } from './gemini-cli.js';
import { createOpencodeDecoder } from './opencode.js';
import type { SettlingNativeDecoder } from './settling.js';
import { createTerminalDecoder } from './terminal.js';

/** The native decoders with their `cancel()` (what the supervisor uses), by format name. */
export const NATIVE_AGENT_DECODERS: Readonly<Record<NativeFormat, (options: DecoderOptions) => SettlingNativeDecoder>> =
  {
    codex: createCodexDecoder,
    'claude-code': createClaudeCodeDecoder,
    'gemini-cli': createGeminiCliDecoder,
    opencode: createOpencodeDecoder,
    terminal: createTerminalDecoder,
  };

/** Native agent decoders by format name (`codex`, `claude-code`, `gemini-cli`, `opencode`, `terminal`). */
export const NATIVE_DECODERS: Partial<Record<string, NativeDecoderFactory>> = { ...NATIVE_AGENT_DECODERS };

export type { SettlingNativeDecoder } from './settling.js';
