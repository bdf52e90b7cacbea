import type { Command } from 'commander';
import { failureLine } from '../../lib/failure-line.js';
import { MinicodeError } from '../../lib/errors.js';
import { oneLine } from '../../lib/render/display-text.js';
import type { SessionTreeRow } from '../../lib/store/session-tree.js';

/** What opens a session (`session.started`'s origin), for `--kind`. */
const SESSION_KINDS = ['chat', 'exec', 'batch', 'run', 'acp', 'ingest', 'task'] as const;

/** A session's kind as a person reads it: a batch's sessions are its lines, a task's are sub-agents. */
function kindOf(origin: string | undefined): string {
  if (origin === 'batch') return 'batch line';
  if (origin === 'task') return 'sub-agent';
  return origin ?? '-';
}

/** The first `limit` top-level rows, each with the rows under it; all without a limit. */
function limitRows(rows: SessionTreeRow[], limit: number | undefined): SessionTreeRow[] {
  if (limit === undefined) return rows;
  let top = 0;
  const end = rows.findIndex((r) => r.depth === 0 && ++top > limit);
  return end === -1 ? rows : rows.slice(0, end);
}

/**
 * `minicode sessions [--json] [--tree] [--limit N] [--kind KIND] [--store DIR]`: list the sessions
 * in the store, most recent first, each with its kind (chat, exec, batch line, ...) and title (its
 * first prompt, cut); `--tree`: each child session under its parent.
 * Session ids come from the store, which an older build may have filled with anything: the
 * table shows them through `displayId`, and `--json` escapes what a terminal could act on.
 */
export function registerSessions(program: Command): void {
  program
    .command('sessions')
    .description('list stored sessions (most recent first)')
    .option('--json', 'one JSON object per session per line')
    .option(
      '--tree',
      'child sessions (the task tool) under their parents, indented (with --json: in that order, each with its depth)',
    )
    .option(
      '--limit <n>',
      'only the N most recent sessions (with --tree: N top-level sessions, each with its children)',
    )
    .option('--kind <kind>', `only sessions of this kind: ${SESSION_KINDS.join(', ')}`)
    .option(
      '--store <dir>',
      'store directory (default: $MINICODE_HOME/store, else $XDG_DATA_HOME/minicode/store or ~/.local/share/minicode/store)',
    )
    .action(async (opts: { json?: boolean; tree?: boolean; store?: string; limit?: string; kind?: string }) => {
      const fs = await import('node:fs');
      const { openStore, resolveStoreDir } = await import('../../lib/store/index.js');
      const { displayId } = await import('../../lib/ids.js');
      const { jsonLine } = await import('../../lib/render/json-line.js');
      const { writeErr, writeOut } = await import('../stdout.js');
      const { positiveInt } = await import('../../lib/flag-values.js');
      let limit: number | undefined;
      try {
        limit = positiveInt(opts.limit, '--limit');
        if (opts.kind !== undefined && !(SESSION_KINDS as readonly string[]).includes(opts.kind))
          throw new MinicodeError(
            'MINICODE_E_USAGE',
            `--kind must be one of ${SESSION_KINDS.join(', ')}, got "${oneLine(opts.kind)}"`,
            { action: 'pass --kind chat' },
          );
      } catch (error) {
        if (!(error instanceof MinicodeError)) throw error;
        writeErr(failureLine(error, { withCode: true }));
        process.exitCode = error.exitCode;
        return;
      }
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
      if (opts.kind !== undefined) entries = entries.filter((e) => e.origin === opts.kind);
      const rowsOf = limitRows(opts.tree ? sessionTree(entries) : entries.map((entry) => ({ entry, depth: 0 })), limit);
      if (opts.json) {
        writeOut(rowsOf.map(({ entry, depth }) => jsonLine(opts.tree ? { ...entry, depth } : entry) + '\n').join(''));
        return;
      }
      if (entries.length === 0) {
        writeOut(`no ${opts.kind !== undefined ? `${oneLine(opts.kind)} ` : ''}sessions in ${oneLine(dir)}\n`);
        return;
      }
      const rows = rowsOf.map(({ entry: e, depth }) => [
        `${depth > 0 ? `${'  '.repeat(depth - 1)}└ ` : ''}${displayId(e.sessionId)}`,
        oneLine(e.startedAt ?? '-'),
        oneLine(e.outcome),
        oneLine(kindOf(e.origin)),
        oneLine([e.agent ?? e.provider, e.model].filter(Boolean).join(' ') || '-'),
        String(e.eventCount),
        oneLine(e.title ?? '-'),
      ]);
      const header = ['SESSION', 'STARTED', 'OUTCOME', 'KIND', 'MODEL', 'EVENTS', 'TITLE'];
      const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
      const line = (r: string[]) =>
        r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] as number))).join('  ') + '\n';
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
