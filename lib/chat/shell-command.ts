/**
 * `!command` at the prompt: run a shell command in the workspace the way the agent's `bash` tool
 * runs one (the same tool, so the same process group, output cap and environment with every
 * credential variable removed), show its output to the person and keep it, scrubbed and
 * bounded, for the next turn. It runs without asking and outside the sandbox whatever the
 * approval mode: the person typed it, and approvals and the sandbox are about the model's calls.
 */
import { displayText } from '../render/display-text.js';
import { credentialSecretsFromEnv, redactText } from '../scrub/index.js';
import { bashTool } from '../tools/bash.js';
import { capHeadTail } from '../tools/truncate.js';
import { DEFAULT_TOOL_LIMITS } from '../tools/types.js';
import { shellBlock } from './attachments.js';

/** Most output lines printed under a `!command`; default 40. */
export const MAX_SHELL_LINES_SHOWN = 40;
/** Most output characters a `!command` adds to the next turn; default 8,000 (head and tail). */
export const MAX_SHELL_CONTEXT_CHARS = 8_000;

/** Options of {@link runShellCommand}. */
export interface ShellCommandOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
}

/** What a `!command` leaves: lines for the person, and the block for the next turn. */
export interface ShellCommandResult {
  lines: string[];
  block?: string;
}

/** Run one `!command`; never throws. */
export async function runShellCommand(command: string, options: ShellCommandOptions): Promise<ShellCommandResult> {
  // The tool's own approval is for the model's calls: here the person is the one asking.
  const outcome = await bashTool.run(
    { command },
    {
      cwd: options.cwd,
      signal: options.signal,
      approve: async () => 'allow',
      limits: DEFAULT_TOOL_LIMITS,
      env: options.env,
      tty: true,
    },
  );
  const raw = outcome.status === 'denied' ? '' : (outcome.output ?? '');
  // Scrubbed like every event string: the person's screen and the next prompt alike.
  const output = redactText(displayText(raw), { secrets: credentialSecretsFromEnv(options.env) });
  const exitCode = outcome.status === 'denied' ? undefined : outcome.receipt?.exitCode;
  const exit = exitCode !== undefined ? String(exitCode) : options.signal.aborted ? 'aborted' : 'unknown';
  const all = output.replace(/\n$/, '').split('\n');
  const shown = output === '' ? [] : all.slice(0, MAX_SHELL_LINES_SHOWN).map((l) => `  ${l}`);
  if (all.length > MAX_SHELL_LINES_SHOWN) shown.push(`  … +${all.length - MAX_SHELL_LINES_SHOWN} more lines`);
  const status =
    outcome.status === 'completed' ? `✓ exit 0` : `✗ ${outcome.status === 'failed' ? outcome.message : outcome.reason}`;
  return {
    lines: [...shown, `${status} (kept for the next message)`],
    block: shellBlock(
      redactText(command, { secrets: credentialSecretsFromEnv(options.env) }),
      exit,
      capHeadTail(output, MAX_SHELL_CONTEXT_CHARS).text,
    ),
  };
}
