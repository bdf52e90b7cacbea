/**
 * A text file named by a flag (`--prompt-file`, `--system-prompt`), read whole up to a bound:
 * opened non-blocking and checked on its descriptor, so a FIFO or a folder is refused instead of
 * blocking the run; a byte order mark is dropped.
 */
import fs from 'node:fs';
import { MinicodeError } from './errors.js';

/** The largest text file a flag may name (1 MiB). */
export const MAX_TEXT_FILE_BYTES = 1024 * 1024;

/** The text of `file` (named by `flag`); MINICODE_E_INPUT_UNREADABLE (exit 1) when it cannot be read, MINICODE_E_USAGE (exit 2) when it is not a file or too large. */
export function readTextFile(file: string, flag: string, maxBytes: number = MAX_TEXT_FILE_BYTES): string {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    throw new MinicodeError(
      'MINICODE_E_INPUT_UNREADABLE',
      `${flag} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { action: `pass ${flag} a readable text file` },
    );
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile())
      throw new MinicodeError('MINICODE_E_USAGE', `${flag} ${file}: not a file`, {
        action: `pass ${flag} a text file`,
      });
    if (stat.size > maxBytes)
      throw new MinicodeError('MINICODE_E_USAGE', `${flag} ${file}: larger than ${maxBytes} bytes`, {
        action: `pass ${flag} a shorter file`,
      });
    const text = fs.readFileSync(fd, 'utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } finally {
    fs.closeSync(fd);
  }
}
