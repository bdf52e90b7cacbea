/**
 * Where `exec`'s prompt comes from: the PROMPT argument, `--prompt-file FILE`, or standard
 * input (`exec -`, or no PROMPT with stdin not a terminal). With a PROMPT (or a prompt file) and
 * stdin not a terminal, what stdin holds is added to the prompt as context.
 *
 * Hazards handled:
 * - A stdin nobody writes to and nobody closes (a CI runner's, a parent process's open pipe)
 *   must not hang a run whose prompt is already given: for context, a pipe is read only if its
 *   first bytes (or its end) arrive within `stdinWaitMs` (default 3 s,
 *   `MINICODE_STDIN_WAIT_MS`); otherwise the run goes on without it and says so on stderr.
 *   A prompt asked for on stdin (`-`) is waited for: the user said it comes from there.
 * - `/dev/null` and closed pipes end at once and give an empty context.
 * - A regular file or a character device is read synchronously; a terminal is never read.
 * - Every read is bounded (`maxBytes`, default 1 MiB): more is a usage error, never a silent cut.
 */
import fs from 'node:fs';
import { MinicodeError } from '../lib/errors.js';
import { readTextFile } from '../lib/text-file.js';
import { dropExpected } from '../lib/debug.js';

/** The largest prompt or context read from stdin or a prompt file (1 MiB). */
export const MAX_PROMPT_BYTES = 1024 * 1024;
/** How long a given prompt waits for context on a pipe that has sent nothing yet (3 s). */
export const DEFAULT_STDIN_WAIT_MS = 3000;

/** Options of {@link readPromptInput}. */
export interface PromptInputOptions {
  /** The PROMPT argument; `-` reads the prompt from stdin. */
  argument?: string | undefined;
  /** `--prompt-file FILE`. */
  promptFile?: string | undefined;
  /** Standard input (its fd is inspected, its stream read only for a pipe or socket). */
  stdin: NodeJS.ReadStream & { fd: number };
  /** Default {@link DEFAULT_STDIN_WAIT_MS}. */
  stdinWaitMs?: number | undefined;
  /** Default {@link MAX_PROMPT_BYTES}. */
  maxBytes?: number | undefined;
  /** A note for the person (stderr). */
  onNote: (message: string) => void;
}

type StdinKind = 'terminal' | 'pipe' | 'file' | 'none';

function stdinKind(stdin: PromptInputOptions['stdin']): StdinKind {
  if (stdin.isTTY) return 'terminal';
  let stat: fs.Stats;
  try {
    stat = fs.fstatSync(stdin.fd);
  } catch (error) {
    // fd 0 closed: nothing to read.
    dropExpected('reading what stdin is', error, 'EBADF');
    return 'none';
  }
  if (stat.isFIFO() || stat.isSocket()) return 'pipe';
  return stat.isFile() || stat.isCharacterDevice() ? 'file' : 'none';
}

function tooLarge(what: string, maxBytes: number): MinicodeError {
  return new MinicodeError('MINICODE_E_USAGE', `${what} is larger than ${maxBytes} bytes`, {
    action: 'pass a shorter prompt, or put the material in a file the agent can read',
  });
}

/** Bytes as text: UTF-8 without a byte order mark. */
function textOf(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Read a file or character device synchronously, at most `maxBytes`. */
function readSyncBounded(fd: number, maxBytes: number, what: string): string {
  const chunks: Buffer[] = [];
  let size = 0;
  const buffer = Buffer.alloc(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(fd, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') break; // a non-blocking device with nothing more now
      if (code === 'EOF') break;
      throw new MinicodeError(
        'MINICODE_E_INPUT_UNREADABLE',
        `cannot read ${what}: ${code ?? (error as Error).message}`,
        { action: `check ${what}` },
      );
    }
    if (n === 0) break;
    size += n;
    if (size > maxBytes) throw tooLarge(what, maxBytes);
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return textOf(Buffer.concat(chunks));
}

/**
 * Read a pipe to its end. With `firstByteWaitMs`, give up (undefined) when neither data nor the
 * end came within it; once data came, read on to the end.
 */
function readPipe(
  stream: NodeJS.ReadStream,
  maxBytes: number,
  firstByteWaitMs: number | undefined,
): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (): void => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      clearTimeout(timer);
      size += chunk.length;
      if (size > maxBytes) {
        finish();
        stream.destroy();
        reject(tooLarge('stdin', maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      finish();
      resolve(textOf(Buffer.concat(chunks)));
    };
    const onError = (error: Error): void => {
      finish();
      reject(
        new MinicodeError(
          'MINICODE_E_INPUT_UNREADABLE',
          `cannot read stdin: ${(error as NodeJS.ErrnoException).code ?? error.message}`,
          { action: 'check what is piped into minicode' },
        ),
      );
    };
    const timer =
      firstByteWaitMs === undefined
        ? undefined
        : setTimeout(() => {
            finish();
            // Nothing came: stop reading so the open pipe does not hold the process.
            stream.destroy();
            resolve(undefined);
          }, firstByteWaitMs);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}

/** What stdin holds: everything (`wait` undefined) or, for context, only what starts within `wait` ms. */
async function readStdin(
  options: PromptInputOptions,
  kind: StdinKind,
  wait: number | undefined,
): Promise<string | undefined> {
  const maxBytes = options.maxBytes ?? MAX_PROMPT_BYTES;
  if (kind === 'file') return readSyncBounded(options.stdin.fd, maxBytes, 'stdin');
  if (kind === 'pipe') return readPipe(options.stdin, maxBytes, wait);
  return '';
}

/** The prompt with stdin's context after it, marked as such. */
export function withContext(prompt: string, context: string | undefined): string {
  if (context === undefined || context.trim() === '') return prompt;
  return `${prompt}\n\n<stdin>\n${context.replace(/\s+$/, '')}\n</stdin>`;
}

/** The prompt of an `exec` run, from the argument, a prompt file and stdin. */
export async function readPromptInput(options: PromptInputOptions): Promise<string> {
  const kind = stdinKind(options.stdin);
  const wait = options.stdinWaitMs ?? DEFAULT_STDIN_WAIT_MS;
  if (options.promptFile !== undefined && options.argument !== undefined) {
    throw new MinicodeError('MINICODE_E_USAGE', 'give the prompt once: a PROMPT argument or --prompt-file, not both', {
      action: 'drop one of them',
    });
  }
  const fromStdin = options.argument === '-' || (options.argument === undefined && options.promptFile === undefined);
  if (fromStdin) {
    if (kind === 'terminal') {
      throw new MinicodeError(
        'MINICODE_E_USAGE',
        options.argument === '-' ? 'exec -: stdin is a terminal, not a prompt' : 'missing PROMPT',
        {
          action:
            'say what to do: minicode exec "fix the failing test", or pipe it in: echo "fix the failing test" | minicode exec -',
        },
      );
    }
    return (await readStdin(options, kind, undefined)) ?? '';
  }
  const prompt =
    options.promptFile !== undefined
      ? readTextFile(options.promptFile, '--prompt-file', options.maxBytes ?? MAX_PROMPT_BYTES)
      : (options.argument as string);
  if (kind === 'terminal' || kind === 'none') return prompt;
  const context = await readStdin(options, kind, wait);
  if (context === undefined)
    options.onNote(
      `stdin sent nothing within ${wait} ms; going on without it (redirect it from /dev/null to skip the wait)`,
    );
  return withContext(prompt, context);
}
