import type { Command } from 'commander';

/**
 * `minicode scrub [FILE|-]`: the scrub stage as a filter. Reads FILE (or stdin for `-` or no
 * argument) in chunks and writes it to stdout with terminal control sequences neutralised and
 * secrets redacted, holding back only what a pending match needs. The values of credential
 * environment variables present at start-up are masked too.
 */
export function registerScrub(program: Command): void {
  program
    .command('scrub')
    .description('filter text: neutralise terminal control sequences and redact secrets (stdin or FILE to stdout)')
    .argument('[file]', 'input file, or - for stdin', '-')
    .action(async (file: string) => {
      const [{ createReadStream, promises: fsp }, { guardOutput }, scrub, errors] = await Promise.all([
        import('node:fs'),
        import('../stdout.js'),
        import('../../lib/scrub/index.js'),
        import('../../lib/errors.js'),
      ]);
      const decoder = new TextDecoder('utf-8');
      const sanitizer = scrub.createSanitizer();
      const redactor = scrub.createRedactor({ secrets: scrub.credentialSecretsFromEnv(process.env) });
      const stdout = guardOutput(process.stdout);
      const write = async (text: string): Promise<void> => {
        if (text.length > 0 && !stdout.write(text)) await stdout.drain();
      };
      try {
        // Open first so that a missing file is one clear error, not a half-written output.
        const input =
          file === '-'
            ? process.stdin
            : createReadStream('', { fd: await fsp.open(file, 'r'), highWaterMark: 64 * 1024 });
        for await (const chunk of input as AsyncIterable<Buffer>) {
          // A filter has nothing left to do once its reader has gone.
          if (stdout.closed) return;
          await write(redactor.push(sanitizer.push(decoder.decode(chunk, { stream: true }))));
        }
        await write(redactor.push(sanitizer.push(decoder.decode()) + sanitizer.end()) + redactor.end());
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const e = new errors.MinicodeError(
          'MINICODE_E_INPUT_UNREADABLE',
          `cannot read ${file}: ${code ?? String(error)}`,
        );
        process.stderr.write(`minicode scrub: ${e.code}: ${e.message}\n`);
        process.exitCode = e.exitCode;
      }
    });
}
