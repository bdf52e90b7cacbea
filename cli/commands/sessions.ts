import type { Command } from 'commander';
import { failureLine } from '../../lib/failure-line.js';

/**
 * `minicode sessions [--json] [--tree] [--store DIR]`: list the sessions in the store, most recent first
 * (`--tree`: each child session under its parent).
 * Session ids come from the store, which an older build may have filled with anything: the
 * table shows them through `displayId`, and `--json` escapes what a terminal could act on.
 */
export function registerSessions(program: Command): void {
  program
    .command('sessions')
    .description('list stored sessions (most recent first)')
    .option('--json', 'one JSON object per session per line')
    .option('--tree', 'child sessions (the task tool) under their parents, indented (with --json: in that order, each with its depth)')
    .option('--store <dir>', 'store directory (default: $MINICODE_HOME/store, else $XDG_DATA_HOME/minicode/store or ~/.local/share/minicode/store)')
    .action(async (opts: { json?: boolean; tree?: boolean; store?: string }) => {
      const fs = await import('node:fs');
      const { openStore, resolveStoreDir } = await import('../../lib/store/index.js');
      const { MinicodeError } = await import('../../lib/errors.js');
      const { displayId } = await import('../../lib/ids.js');
      const { jsonLine } = await import('../../lib/render/json-line.js');
      const { oneLine } = await import('../../lib/render/display-text.js');
      const { writeErr, writeOut } = await import('../stdout.js');
      const dir = resolveStoreDir({ flag: opts.store });
      let entries: import('../../lib/store/session-index.js').SessionIndexEntry[] = [];
      // No store yet is not an error: there are simply no sessions. A path through a file
      // (MINICODE_HOME or --store a file) is: opening it reports MINICODE_E_STORE.
      if (!isMissing(fs, dir)) {
        try {
          const store = openStore({ dir, readOnly: true });
          try {
            entries = store.listSessions();
          } finally {
            await store.close();
          }
        } catch (error) {
          if (!(error instanceof MinicodeError)) throw error;
          writeErr(failureLine(error, { withCode: true }));
          process.exitCode = error.exitCode;
          return;
        }
      }
      const { sessionTree } = await import('../../lib/store/session-tree.js');
      const rowsOf = opts.tree ? sessionTree(entries) : entries.map((entry) => ({ entry, depth: 0 }));
      if (opts.json) {
        writeOut(rowsOf.map(({ entry, depth }) => jsonLine(opts.tree ? { ...entry, depth } : entry) + '\n').join(''));
        return;
      }
      if (entries.length === 0) {
        writeOut(`no sessions in ${oneLine(dir)}\n`);
        return;
      }
      const rows = rowsOf.map(({ entry: e, depth }) => [
        `${depth > 0 ? `${'  '.repeat(depth - 1)}└ ` : ''}${displayId(e.sessionId)}`,
        oneLine(e.startedAt ?? '-'),
        oneLine(e.outcome),
        oneLine([e.origin, e.agent ?? e.provider, e.model].filter(Boolean).join(' ') || '-'),
        String(e.eventCount),
      ]);
      const header = ['SESSION', 'STARTED', 'OUTCOME', 'ORIGIN', 'EVENTS'];
      const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
      const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] as number))).join('  ') + '\n';
      writeOut(line(header) + rows.map(line).join(''));
    });
}

/** True when nothing is at `dir` (ENOENT); false when it exists or cannot be reached (ENOTDIR). */
function isMissing(fs: typeof import('node:fs'), dir: string): boolean {
  try {
    fs.statSync(dir);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
