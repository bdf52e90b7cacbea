import type { Command } from 'commander';
import type { ChatFlags } from '../chat-action.js';
import { addCheckpointFlag, addRunFlags } from './exec.js';

/** Add the interactive mode's flags: the run flags plus `--continue` / `--resume`. */
export function addChatFlags(command: Command): Command {
  addCheckpointFlag(addRunFlags(command))
    .option('-c, --continue', 'reopen the most recent interactive session of this directory')
    .option('-r, --resume <session>', 'reopen a stored session (see `minicode sessions`)');
  // In chat edits and commands ask by default (a person is there to answer); --approval auto restores exec's allowlist.
  command.setOptionValueWithSource('approval', 'ask', 'default');
  // ...and the help says so.
  command.options.find((o) => o.long === '--approval')?.default('ask');
  return command;
}

/**
 * `minicode chat` (also `minicode` with no command on a TTY): an interactive session in the
 * current project. Exit codes: 0 on a clean exit, 1 a setup failure, 2 a usage error
 * (including a terminal that is not a TTY).
 */
export function registerChat(program: Command): void {
  const command = program
    .command('chat')
    .description('interactive session in the current project (the default on a TTY)');
  addChatFlags(command).action(async (flags: ChatFlags) => {
    const { chatAction } = await import('../chat-action.js');
    process.exitCode = await chatAction(flags);
  });
}
