import type { Command } from 'commander';
import { failureLine } from '../../lib/failure-line.js';

interface ReplayOptions {
  json?: boolean;
  linear?: boolean;
  store?: string;
}

/**
 * `minicode replay SESSION [--json|--linear] [--store DIR]`: rebuild a stored session from its
 * durable events. `--json` prints the stored envelopes one per line, then a summary line; the
 * default (and, until the linear renderer is wired in, `--linear`) prints a plain text view.
 * Child sessions (the `task` tool) are shown nested after the parent's call that started them:
 * their envelopes (`--json`, each naming its own `sessionId`) or their text indented.
 * An unknown session exits 1 with MINICODE_E_SESSION_NOT_FOUND; an id outside the session id
 * grammar (`lib/ids.ts`) exits 2 with MINICODE_E_SESSION_ID_INVALID.
 */
export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description('rebuild a stored session and render it')
    .argument('<session>', 'session id (see `minicode sessions`): 1-128 of A-Z a-z 0-9 . _ : -')
    .option('--json', 'stored envelopes as JSON lines, then a summary line')
    .option('--linear', 'plain linear text (the default)')
    .option(
      '--store <dir>',
      'store directory (default: $MINICODE_HOME/store, else $XDG_DATA_HOME/minicode/store or ~/.local/share/minicode/store)',
    )
    .action(async (sessionId: string, opts: ReplayOptions) => {
      const fs = await import('node:fs');
      const { OutputEventSchema, SCHEMA_NAME } = await import('../../lib/events/index.js');
      const { MinicodeError } = await import('../../lib/errors.js');
      const { createRebuilder } = await import('../../lib/reducer/index.js');
      const { createRenderer, loadMarkdown } = await import('../../lib/render/index.js');
      if (!opts.json && !opts.linear && process.stdout.isTTY) await loadMarkdown();
      const { openStore, resolveStoreDir } = await import('../../lib/store/index.js');
      const { checkSessionId } = await import('../../lib/ids.js');
      const { guardOutput, writeErr } = await import('../stdout.js');
      const { outputPortOf } = await import('../../lib/pipeline/output.js');
      const output = outputPortOf(guardOutput(process.stdout));
      const write = (text: string): void => output.write(text);

      const dir = resolveStoreDir({ flag: opts.store });
      const fail = (error: InstanceType<typeof MinicodeError>) => {
        if (opts.json) {
          const summary = {
            schema: SCHEMA_NAME,
            type: 'summary',
            ok: false,
            error: { category: error.category, code: error.code, message: error.message },
          };
          write(JSON.stringify(summary) + '\n');
        }
        writeErr(failureLine(error, { withCode: true }));
        process.exitCode = error.exitCode;
      };
      try {
        checkSessionId(sessionId, 'SESSION');
      } catch (error) {
        if (error instanceof MinicodeError) return fail(error);
        throw error;
      }
      if (!fs.existsSync(dir)) {
        fail(
          new MinicodeError('MINICODE_E_SESSION_NOT_FOUND', `no session ${sessionId}: no store at ${dir}`, {
            action: 'pass --store DIR',
          }),
        );
        return;
      }
      let store: ReturnType<typeof import('../../lib/store/index.js')['openStore']>;
      try {
        store = openStore({ dir, readOnly: true });
      } catch (error) {
        if (error instanceof MinicodeError) return fail(error);
        throw error;
      }
      try {
        const rebuilder = createRebuilder({ sessionId });
        // One truth everywhere: replay renders through the same renderers as exec and ingest.
        const renderer = createRenderer(opts.json ? 'jsonl' : process.stdout.isTTY && !opts.linear ? 'tty' : 'linear', {
          out: write,
          err: writeErr,
          stream: process.stdout,
        });
        let count = 0;
        let invalid = 0;
        // Child sessions (the task tool) by the parent's tool call, shown nested after it starts.
        const sessions = store.listSessions();
        const childrenOf = (parent: string): Map<string, string[]> => {
          const byCall = new Map<string, string[]>();
          for (const e of [...sessions].reverse()) {
            if (e.parentSessionId !== parent || e.parentToolCallId === undefined) continue;
            byCall.set(e.parentToolCallId, [...(byCall.get(e.parentToolCallId) ?? []), e.sessionId]);
          }
          return byCall;
        };
        const { createChildJsonlRenderer } = await import('../../lib/render/jsonl.js');
        /** A child session's events, rendered as `exec` showed them: its lines (--json), or its text indented under the call. */
        const replayChild = async (childId: string, depth: number): Promise<void> => {
          const indent = '  │ '.repeat(depth);
          const childOut = (text: string): void => write(text.replace(/^(?=.)/gm, indent));
          const childRenderer = opts.json
            ? createChildJsonlRenderer({ out: write, mode: 'events' })
            : createRenderer('linear', { out: childOut, err: writeErr, stream: process.stdout });
          const childRebuilder = createRebuilder({ sessionId: childId });
          const nested = childrenOf(childId);
          for (const stored of store.iterateSession(childId)) {
            if (!OutputEventSchema.safeParse(stored).success) continue;
            childRebuilder.push(stored);
            childRenderer.onEvent(stored, childRebuilder.unsettled());
            if (stored.type === 'tool.started')
              for (const grandchild of nested.get(stored.payload.toolCallId) ?? [])
                await replayChild(grandchild, depth + 1);
            const wait = output.ready();
            if (wait) await wait;
          }
          childRenderer.finish(childRebuilder.finish());
        };
        const nested = childrenOf(sessionId);
        for (const stored of store.iterateSession(sessionId)) {
          // The store is a trust boundary (docs/pipeline.md): validate what is read back.
          if (!OutputEventSchema.safeParse(stored).success) {
            invalid++;
            continue;
          }
          // The stored object, not zod's copy: zod rebuilds objects in its schema's key order,
          // and replay --json must print each event byte for byte as the live run did.
          const event = stored;
          count++;
          rebuilder.push(event);
          renderer.onEvent(event, rebuilder.unsettled());
          if (event.type === 'tool.started')
            for (const child of nested.get(event.payload.toolCallId) ?? []) await replayChild(child, 1);
          // A slow reader pauses the store scan instead of growing stdout's buffer.
          const wait = output.ready();
          if (wait) await wait;
        }
        if (count === 0 && store.getSession(sessionId) === undefined) {
          fail(
            new MinicodeError('MINICODE_E_SESSION_NOT_FOUND', `no session ${sessionId} in ${dir}`, {
              action: 'run `minicode sessions` to list stored sessions',
            }),
          );
          return;
        }
        if (invalid > 0) writeErr(`minicode: skipped ${invalid} stored event(s) that do not match ${SCHEMA_NAME}\n`);
        // A session whose writer is still alive is unfinished, not interrupted.
        const writing = store.getSession(sessionId)?.outcome === 'running';
        if (writing) {
          // Not settled yet: say so instead of rendering a final outcome the run has not reached.
          if (opts.json)
            write(
              JSON.stringify({
                schema: SCHEMA_NAME,
                type: 'summary',
                ok: false,
                outcome: 'running',
                sessionId,
                durableEvents: count,
              }) + '\n',
            );
          else write(`… running: session ${sessionId} is still being written (${count} durable events so far)\n`);
        } else {
          renderer.finish(rebuilder.finish());
        }
      } finally {
        await store.close();
      }
    });
}
