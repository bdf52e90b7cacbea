import type { Command } from 'commander';

/** `minicode sessions [--json] [--store DIR]`: list the sessions in the store, most recent first. */
export function registerSessions(program: Command): void {
  program
    .command('sessions')
    .description('list stored sessions (most recent first)')
    .option('--json', 'one JSON object per session per line')
    .option('--store <dir>', 'store directory (default: $MINICODE_HOME/store, else $XDG_DATA_HOME/minicode/store)')
    .action(async (opts: { json?: boolean; store?: string }) => {
      const fs = await import('node:fs');
      const { openStore, resolveStoreDir } = await import('../../lib/store/index.js');
      const dir = resolveStoreDir({ flag: opts.store });
      // No store yet is not an error: there are simply no sessions.
      const entries = fs.existsSync(dir) ? await (async () => {
        const store = openStore({ dir, readOnly: true });
        try {
          return store.listSessions();
        } finally {
          await store.close();
        }
      })() : [];
      if (opts.json) {
        process.stdout.write(entries.map((e) => JSON.stringify(e) + '\n').join(''));
        return;
      }
      if (entries.length === 0) {
        process.stdout.write(`no sessions in ${dir}\n`);
        return;
      }
      const rows = entries.map((e) => [
        e.sessionId,
        e.startedAt ?? '-',
        e.outcome,
        [e.origin, e.agent ?? e.provider, e.model].filter(Boolean).join(' ') || '-',
        String(e.eventCount),
      ]);
      const header = ['SESSION', 'STARTED', 'OUTCOME', 'ORIGIN', 'EVENTS'];
      const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
      const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] as number))).join('  ') + '\n';
      process.stdout.write(line(header) + rows.map(line).join(''));
    });
}
