import { Option, type Command } from 'commander';
import { INGEST_FORMATS } from '../../lib/decode/formats.js';
import { definedOnly } from '../../lib/defined-only.js';

interface IngestFlags {
  from: string;
  json?: boolean;
  linear?: boolean;
  store?: string;
  session?: string;
  verbose?: boolean;
}

/**
 * `minicode ingest --from FORMAT [FILE|-]`: decode a recorded stream into minicode.output.v1.
 * `--json` prints the envelopes (and text records) then a summary line; `--store` keeps the
 * durable events as a session. Exit 0 when the stream decoded (whatever the run's outcome), 1
 * when the input cannot be read (a directory included) or the store cannot be opened, 2 for
 * usage errors (an invalid `--session` id among them), 130 when SIGINT or SIGTERM stopped it.
 */
export function registerIngest(program: Command): void {
  program
    .command('ingest')
    .description('decode a recorded provider or native-agent stream into minicode.output.v1')
    .argument('[file]', 'input file, or - for stdin', '-')
    .addOption(new Option('--from <format>', 'input format').choices([...INGEST_FORMATS]).makeOptionMandatory())
    .option('--json', 'JSON lines: envelopes, text records, one summary last')
    .option('--linear', 'plain linear text even on a TTY')
    .option('--verbose', 'show verbose facts')
    .option('--store <dir>', 'keep the durable events as a session in this store')
    .option('--session <id>', 'session id to use: 1-128 of A-Z a-z 0-9 . _ : - (default: a new one)')
    .action(async (file: string, flags: IngestFlags) => {
      const { runIngest } = await import('../../lib/pipeline/ingest.js');
      const { createRenderer, reportSetupFailure } = await import('../../lib/render/index.js');
      const { checkSessionId, newSessionId } = await import('../../lib/ids.js');
      const { MinicodeError } = await import('../../lib/errors.js');
      const { guardOutput, noteClosedStdout, writeErr: err } = await import('../stdout.js');
      const { outputPortOf } = await import('../../lib/pipeline/output.js');
      const output = outputPortOf(guardOutput(process.stdout));
      const out = (text: string): void => output.write(text);
      let store: import('../../lib/store/index.js').EventStore | undefined;
      // SIGINT/SIGTERM stop the reading: what was decoded is settled and stored (it rebuilds as
      // interrupted), one `ok:false` summary with MINICODE_E_ABORTED, exit 130 (as exec). A
      // second signal, or one once the stream is settled, exits 130 at once.
      const abort = new AbortController();
      let settled = false;
      const onSignal = (signal: NodeJS.Signals): void => {
        if (abort.signal.aborted || settled) process.exit(130);
        abort.abort(signal);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      try {
        const sessionId = flags.session === undefined ? newSessionId() : checkSessionId(flags.session, '--session');
        const input = file === '-' ? process.stdin : await openInput(file);
        if (flags.store) {
          const { openStore } = await import('../../lib/store/index.js');
          store = openStore({ dir: flags.store });
          // A second stream under a stored id would overwrite the first session's events: the id
          // is claimed in the store, atomically, so of two ingests racing for it one is refused.
          if (flags.session !== undefined && !(await store.claimSession(sessionId)))
            throw new MinicodeError(
              'MINICODE_E_USAGE',
              `--session ${sessionId}: the store ${flags.store} already holds a session with that id`,
              {
                action: 'pass another --session id, or leave it out for a new one',
              },
            );
        }
        const renderer = flags.json
          ? createRenderer('jsonl', { out, err })
          : createRenderer(process.stdout.isTTY && !flags.linear ? 'tty' : 'linear', {
              out,
              err,
              stream: process.stdout,
              verbosity: flags.verbose ? 'verbose' : 'normal',
            });
        await runIngest(
          definedOnly({ input, format: flags.from, sessionId, renderer, output, signal: abort.signal, store }),
        );
        settled = true;
        if (abort.signal.aborted) process.exitCode = 130;
        if (store && !flags.json) err(`stored session ${sessionId} in ${flags.store}\n`);
        else if (store) noteClosedStdout(`minicode replay ${sessionId} --json --store ${flags.store}`);
      } catch (error) {
        if (!(error instanceof MinicodeError)) throw error;
        process.exitCode = reportSetupFailure(error, { json: flags.json, out, err, withCode: true });
      } finally {
        settled = true;
        await store?.close();
      }
    });
}

/** Open FILE for reading: MINICODE_E_INPUT_UNREADABLE when it cannot be read or is a directory. */
async function openInput(file: string): Promise<import('node:stream').Readable> {
  const fs = await import('node:fs');
  const { MinicodeError } = await import('../../lib/errors.js');
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    throw new MinicodeError(
      'MINICODE_E_INPUT_UNREADABLE',
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      {
        action: 'pass a readable file, or - for stdin',
      },
    );
  }
  // open(2) succeeds on a directory; only the first read fails, deep in the pipeline.
  if (fs.fstatSync(fd).isDirectory()) {
    fs.closeSync(fd);
    throw new MinicodeError('MINICODE_E_INPUT_UNREADABLE', `cannot read ${file}: it is a directory`, {
      action: 'pass one recorded stream file, or - for stdin',
    });
  }
  const { INGEST_READ_BYTES } = await import('../../lib/pipeline/ingest.js');
  return fs.createReadStream('', { fd, highWaterMark: INGEST_READ_BYTES });
}
