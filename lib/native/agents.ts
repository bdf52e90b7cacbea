import type { NativeAgent } from '../decode/formats.js';

/** How to start one native agent CLI non-interactively. */
export interface AgentSpec {
  /** Executable name looked up on PATH. */
  readonly binary: string;
  /** Environment variable that overrides the executable path (tests point it at a stand-in). */
  readonly binEnv: string;
  /** Arguments for a one-prompt, machine-readable run. */
  args(prompt: string): string[];
  /** Credential variables the agent needs and keeps; every other credential is removed. */
  readonly keepCredentials: readonly string[];
  /** What to tell a user whose machine lacks the CLI. */
  readonly install: string;
}

/** Non-interactive command lines (NOTES.md §1.1, §2.1, §3.1, §4.1). */
export const AGENT_SPECS: Readonly<Record<NativeAgent, AgentSpec>> = {
  codex: {
    binary: 'codex',
    binEnv: 'MINICODE_CODEX_BIN',
    args: (prompt) => ['exec', '--json', prompt],
    keepCredentials: ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_ORG_ID', 'OPENAI_PROJECT_ID', 'CODEX_*'],
    install: 'install it with `npm install -g @openai/codex`',
  },
  'claude-code': {
    binary: 'claude',
    binEnv: 'MINICODE_CLAUDE_BIN',
    // --verbose is mandatory with -p and stream-json.
    args: (prompt) => ['-p', prompt, '--output-format', 'stream-json', '--verbose'],
    keepCredentials: ['ANTHROPIC_*', 'CLAUDE_*'],
    install: 'install it with `npm install -g @anthropic-ai/claude-code`',
  },
  'gemini-cli': {
    binary: 'gemini',
    binEnv: 'MINICODE_GEMINI_BIN',
    args: (prompt) => ['-p', prompt, '--output-format', 'stream-json'],
    keepCredentials: [
      'GEMINI_*',
      'GOOGLE_API_KEY',
      'GOOGLE_GENAI_*',
      'GOOGLE_CLOUD_*',
      'GOOGLE_APPLICATION_CREDENTIALS',
    ],
    install: 'install it with `npm install -g @google/gemini-cli`',
  },
  opencode: {
    binary: 'opencode',
    binEnv: 'MINICODE_OPENCODE_BIN',
    args: (prompt) => ['run', '--format', 'json', prompt],
    keepCredentials: ['OPENCODE_*'],
    install: 'install it with `npm install -g opencode-ai`',
  },
};
