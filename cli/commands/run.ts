import { Option, type Command } from 'commander';
import { NATIVE_AGENTS } from '../../lib/decode/formats.js';
import { addCheckpointFlag } from './exec.js';

interface RunFlags {
  agent: string;
  fallback?: string;
  json?: boolean;
  store?: string;
  cwd?: string;
  model?: string;
  verbose?: boolean;
  checkpoint?: boolean;
}

/**
 * `minicode run --agent codex|claude-code|gemini-cli|opencode PROMPT [--json]`: supervise an
 * installed native agent CLI through the same pipeline as `exec` (decode, scrub, envelope,
 * reduce, render, store). Exit 0 when the agent's run completed, 1 otherwise or on a setup
 * failure (agent not installed: one `ok:false` summary under --json), 130 when interrupted.
 * `--fallback B,C` hands the work to B (then C) when the active agent's usage quota runs out.
 * The workspace is checkpointed before the agent starts, so `minicode undo` takes its run back.
 */
export function registerRun(program: Command): void {
  const command = program
    .command('run')
    .description('supervise an installed native agent CLI through the minicode pipeline')
    .argument('<prompt>', 'what the agent should do')
    .addOption(new Option('--agent <name>', 'native agent CLI').choices([...NATIVE_AGENTS]).makeOptionMandatory())
    .option(
      '--fallback <agents>',
      'comma-separated agents that take over, in order, when the active one runs out of usage quota',
    )
    .option('--json', 'JSON lines on stdout: envelopes, text records, one summary last')
    .option('--model <name>', 'passed to the agent as --model')
    .option('--verbose', 'show verbose facts')
    .option(
      '--store <dir>',
      'session store directory (default: $MINICODE_HOME/store, else $XDG_DATA_HOME/minicode/store or ~/.local/share/minicode/store)',
    )
    .option('--cwd <dir>', 'project directory (default: the current directory)');
  addCheckpointFlag(command).action(async (prompt: string, flags: RunFlags) => {
    const { runNativeAction } = await import('../run-native-action.js');
    process.exitCode = await runNativeAction(prompt, flags);
  });
}
