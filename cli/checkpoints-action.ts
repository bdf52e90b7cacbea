/** `minicode undo` / `minicode checkpoints`: thin printing around lib/checkpoints. */
import path from 'node:path';
import {
  checkpointSettingsOf,
  DEFAULT_CHECKPOINT_LIMITS,
  resolveCheckpointsHome,
  type CheckpointSettings,
} from '../lib/checkpoints/settings.js';
import { checkpointLines, undoLines } from '../lib/checkpoints/format.js';
import { listCheckpoints, pruneCheckpoints, undoWorkspace } from '../lib/checkpoints/undo.js';
import { loadConfig } from '../lib/config-files.js';
import { MinicodeError } from '../lib/errors.js';
import { directoryFlag } from '../lib/agent/run-setup.js';
import { checkSessionId, displayId } from '../lib/ids.js';
import { definedOnly } from '../lib/defined-only.js';
import { failureLine } from '../lib/failure-line.js';

/** Flags both commands share (undo adds `to` and `dryRun`). */
export interface CheckpointsActionFlags {
  session?: string;
  to?: string;
  json?: boolean;
  dryRun?: boolean;
  force?: boolean;
  cwd?: string;
}

/** `undo --to`: 4 to 40 hex digits (a checkpoint id or a prefix of one), else a usage error showing the value escaped. */
function checkCheckpointId(to: string): void {
  if (/^[0-9a-fA-F]{4,40}$/.test(to)) return;
  const shown = to === '' ? 'an empty id' : `"${displayId(to)}"`;
  throw new MinicodeError('MINICODE_E_USAGE', `--to: ${shown} is not a checkpoint id`, {
    action: 'pass a checkpoint id or a prefix of it, 4 to 40 hex digits (see minicode checkpoints)',
  });
}

/** Where the checkpoints are and the limits an undo's own snapshot follows (config `checkpoints: false` stops new checkpoints of runs, not undo). */
async function settingsFor(cwd: string): Promise<CheckpointSettings> {
  const config = (await loadConfig({ cwd })).config.checkpoints;
  return (
    checkpointSettingsOf({ config: typeof config === 'object' ? config : true }) ?? {
      home: resolveCheckpointsHome(),
      limits: { ...DEFAULT_CHECKPOINT_LIMITS },
    }
  );
}

/** Run `undo` or `list`; returns the exit code. */
export async function checkpointsAction(
  command: 'undo' | 'list' | 'prune',
  flags: CheckpointsActionFlags,
): Promise<number> {
  let cwd = path.resolve(flags.cwd ?? process.cwd());
  try {
    // As for exec: a --cwd naming nothing or a file is a usage error, not "no checkpoints".
    cwd = directoryFlag(cwd, '--cwd', { mustExist: true });
    // Session ids have one grammar everywhere (docs/exec.md § Session ids): nothing else is looked up or echoed.
    if (flags.session !== undefined) checkSessionId(flags.session, '--session');
    // Likewise a checkpoint id: a git commit id or a prefix of one, so nothing else reaches git or the terminal.
    if (flags.to !== undefined) checkCheckpointId(flags.to);
    const settings = await settingsFor(cwd);
    if (command === 'prune') {
      const report = await pruneCheckpoints({ settings, cwd });
      process.stdout.write(
        flags.json
          ? JSON.stringify({ ok: true, workspace: cwd, ...report }) + '\n'
          : `Checkpoints: dropped ${report.dropped}, kept ${report.kept}${report.gc === 'done' ? '; store garbage-collected' : ''}\n`,
      );
      return 0;
    }
    if (command === 'list') {
      const listings = await listCheckpoints(definedOnly({ settings, cwd, sessionId: flags.session }));
      process.stdout.write(
        flags.json
          ? JSON.stringify({ ok: true, workspace: cwd, checkpoints: listings }) + '\n'
          : checkpointLines(listings).join('\n') + '\n',
      );
      return 0;
    }
    const report = await undoWorkspace(
      definedOnly({
        settings,
        cwd,
        sessionId: flags.session,
        to: flags.to,
        dryRun: flags.dryRun === true,
        force: flags.force === true,
      }),
    );
    process.stdout.write(
      flags.json ? JSON.stringify({ ok: true, ...report }) + '\n' : undoLines(report).join('\n') + '\n',
    );
    return 0;
  } catch (thrown) {
    // A git failure (git missing, a damaged store) is still a coded error, never a stack trace.
    const error =
      thrown instanceof MinicodeError
        ? thrown
        : new MinicodeError('MINICODE_E_CHECKPOINT', (thrown as Error).message ?? String(thrown));
    if (flags.json)
      process.stdout.write(
        JSON.stringify({
          ok: false,
          error: definedOnly({
            code: error.code,
            category: error.category,
            message: error.message,
            action: error.action || undefined,
          }),
        }) + '\n',
      );
    process.stderr.write(failureLine(error));
    return error.exitCode;
  }
}
