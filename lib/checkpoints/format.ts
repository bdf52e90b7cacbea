/** Plain text of an undo report and of a checkpoint listing, shared by the CLI and the interactive mode. */
import type { FileChange } from '../events/payloads.js';
import type { CheckpointListing, UndoReport } from './undo.js';

const MARK: Record<FileChange['kind'], string> = { create: 'A', modify: 'M', delete: 'D', move: 'R' };

/** Lines of an undo report: what was (or would be) restored, then one line per file. */
export function undoLines(report: UndoReport): string[] {
  const what = report.turn ? `turn ${report.turn} of session ${report.sessionId}` : `session ${report.sessionId}`;
  const head = report.dryRun
    ? `Undo (dry run): restoring checkpoint ${report.restored.slice(0, 12)} (${what}) would change ${report.changes.length} file(s)`
    : `Undo: restored checkpoint ${report.restored.slice(0, 12)} (${what}); ${report.changes.length} file(s) changed`;
  const lines = [head, ...report.changes.map((c) => `  ${MARK[c.kind]} ${c.path}`)];
  if (report.undoCheckpoint)
    lines.push(
      `the state before this undo is checkpoint ${report.undoCheckpoint.slice(0, 12)}: minicode undo again takes the undo back`,
    );
  return lines;
}

/** Lines of a checkpoint listing, newest first. */
export function checkpointLines(listings: readonly CheckpointListing[]): string[] {
  if (listings.length === 0) return ['Checkpoints: none for this workspace'];
  const lines: string[] = [];
  for (const l of listings) {
    const label = l.kind === 'undo' ? 'before an undo' : `turn ${l.turn}`;
    lines.push(
      `${l.checkpointId.slice(0, 12)}  ${l.createdAt}  ${l.sessionId}  ${label}${l.finished ? '' : ' (unfinished)'}  ${l.changes.length} file(s)`,
    );
    for (const c of l.changes) lines.push(`    ${MARK[c.kind]} ${c.path}`);
  }
  return lines;
}
