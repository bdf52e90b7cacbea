/**
 * The `--from` format names on their own, so that registering the `ingest` command (done on
 * every CLI start) does not load every decoder: `exec` pays only for what it runs.
 */

/** Every `--from` format name. */
export const INGEST_FORMATS = [
  'openai-chat',
  'openai-responses',
  'anthropic',
  'gemini',
  'ollama',
  'codex',
  'claude-code',
  'gemini-cli',
  'opencode',
  'terminal',
] as const;
export type IngestFormat = (typeof INGEST_FORMATS)[number];
