import type { Command } from 'commander';
import type { CheckpointsActionFlags } from '../checkpoints-action.js';

/** Flags of `minicode checkpoints`. */
interface CheckpointsFlags {
  session?: string;
  json?: boolean;
  cwd?: string;
  prune?: boolean;
}

/**
 * `minicode undo` and `minicode checkpoints`: take back the files the last turn changed in this
 * workspace / list its checkpoints (`--prune`: drop the old ones). Exit 0 on success, 1 when there is nothing to undo or the
 * checkpoint is unknown (a coded error on stderr, or one `ok:false` JSON line under --json).
 */
export function registerUndo(program: Command): void {
  program
    .command('undo')
    .description('restore the files of this workspace to the checkpoint before the last turn that changed them')
    .option('--session <id>', 'undo the last turn of this session (default: the session that ran last here)')
    .option('--to <checkpoint>', 'restore this checkpoint (an id or prefix from minicode checkpoints)')
    .option('--dry-run', 'list what would change, change nothing')
    .option('--force', "undo even while the session's run is still going in another process")
    .option('--json', 'print one JSON object with the restored checkpoint and the changed files')
    .option('--cwd <dir>', 'workspace (default: the current directory)')
    .action(async (flags: CheckpointsActionFlags) => {
      const { checkpointsAction } = await import('../checkpoints-action.js');
      process.exitCode = await checkpointsAction('undo', flags);
    });
  program
    .command('checkpoints')
    .description('list the checkpoints of this workspace, newest first, with the files each turn changed')
    .option('--session <id>', "only this session's checkpoints")
    .option('--json', 'print one JSON object with every checkpoint')
    .option(
      '--prune',
      'drop checkpoints older than checkpoints.maxAgeDays (30) or beyond the newest checkpoints.maxCheckpoints (500), then git gc the store',
    )
    .option('--cwd <dir>', 'workspace (default: the current directory)')
    .action(async (flags: CheckpointsFlags) => {
      const { checkpointsAction } = await import('../checkpoints-action.js');
      process.exitCode = await checkpointsAction(flags.prune ? 'prune' : 'list', flags);
    });
}
