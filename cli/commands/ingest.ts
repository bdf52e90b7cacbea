import { Option, type Command } from 'commander';
import { INGEST_FORMATS } from '../../lib/decode/formats.js';

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
 * when the input cannot be read, 2 for usage errors.
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
    .option('--session <id>', 'session id to use (default: a new one)')
    .action(async (file: string, flags: IngestFlags) => {
      const fs = await import('node:fs');
      const { runIngest } = await import('../../lib/pipeline/ingest.js');
      const { createRenderer, writeSetupFailure } = await import('../../lib/render/index.js');
      const { newSessionId } = await import('../../lib/ids.js');
      const out = (s: string): void => void process.stdout.write(s);
      const err = (s: string): void => void process.stderr.write(s);
      let input: NodeJS.ReadableStream & import('node:stream').Readable;
      if (file === '-') input = process.stdin;
      else {
        try {
          fs.accessSync(file, fs.constants.R_OK);
        } catch (error) {
          const message = `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
          if (flags.json) writeSetupFailure(out, err, { category: 'FILESYSTEM_ERROR', message, action: 'pass a readable file, or - for stdin' });
          else err(`minicode: ${message}\n`);
          process.exitCode = 1;
          return;
        }
        input = fs.createReadStream(file, { highWaterMark: 64 * 1024 });
      }
      let store: import('../../lib/store/index.js').EventStore | undefined;
      if (flags.store) {
        const { openStore } = await import('../../lib/store/index.js');
        store = openStore({ dir: flags.store });
      }
      const renderer = flags.json
        ? createRenderer('jsonl', { out, err })
        : createRenderer(process.stdout.isTTY && !flags.linear ? 'tty' : 'linear', { out, err, stream: process.stdout, verbosity: flags.verbose ? 'verbose' : 'normal' });
      try {
        const sessionId = flags.session ?? newSessionId();
        await runIngest({ input, format: flags.from, sessionId, renderer, ...(store ? { store } : {}) });
        if (store && !flags.json) err(`stored session ${sessionId} in ${flags.store}\n`);
      } finally {
        await store?.close();
      }
    });
}
