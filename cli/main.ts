#!/usr/bin/env node
import { CommanderError } from 'commander';
import { buildProgram, withPromptHint } from './program.js';
import { guardOutput, writeOut } from './stdout.js';
import { mark } from '../lib/timeline.js';
import { neutralise } from '../lib/safe-text.js';

/** Commands whose `--json` output ends in a summary line (`batch`: its `batch.summary`). */
const JSON_SUMMARY_COMMANDS = new Set(['exec', 'run', 'ingest', 'replay', 'batch']);

async function main(argv: string[]): Promise<void> {
  mark('cli: bundle evaluated');
  // A closed pipe (`minicode schema | head`) is neither an error worth a stack trace nor a
  // reason to abandon a run: from here on writes to a closed stdout/stderr are no-ops.
  guardOutput(process.stdout);
  guardOutput(process.stderr);
  const program = buildProgram(argv);
  for (const command of program.commands) command.exitOverride();
  mark('cli: commands registered');
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      ) {
        process.exitCode = 0;
        return;
      }
      process.exitCode = 2;
      // The `--json` modes that end in a summary line promise a non-empty stdout: even a usage
      // error (unknown flag, bad choice, missing argument) prints its one `ok:false` summary
      // line there, as their own errors do; commander already wrote stderr.
      const command = argv[2];
      if (
        command !== undefined &&
        JSON_SUMMARY_COMMANDS.has(command) &&
        !(command === 'batch' && argv[3] === 'report') &&
        argv.includes('--json')
      ) {
        const { batchFailureSummary, setupFailureSummary } = await import('../lib/render/summary.js');
        const message = withPromptHint(error.message.replace(/^error: /, ''));
        const failure = {
          category: 'USER_ERROR',
          code: 'MINICODE_E_USAGE',
          message,
          action: `see minicode ${command} --help`,
        };
        const summary = setupFailureSummary(failure);
        writeOut(`${JSON.stringify(command === 'batch' ? batchFailureSummary(summary.error!) : summary)}\n`);
      }
      return;
    }
    throw error;
  }
}

main(process.argv).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`minicode: internal error: ${neutralise(message)}\n`);
  process.exitCode = 1;
});
