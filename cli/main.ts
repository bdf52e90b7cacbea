#!/usr/bin/env node
import { CommanderError } from 'commander';
import { buildProgram, withPromptHint } from './program.js';
import { guardOutput, writeOut } from './stdout.js';
import { mark } from '../lib/timeline.js';

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
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
        process.exitCode = 0;
        return;
      }
      process.exitCode = 2;
      // `exec --json` promises a non-empty stdout: even a usage error (unknown flag, bad
      // choice) prints its one `ok:false` summary line there; commander already wrote stderr.
      if (argv[2] === 'exec' && argv.includes('--json')) {
        const { setupFailureSummary } = await import('../lib/render/summary.js');
        const message = withPromptHint(error.message.replace(/^error: /, ''));
        writeOut(`${JSON.stringify(setupFailureSummary({ category: 'USER_ERROR', code: 'MINICODE_E_USAGE', message, action: 'see minicode exec --help' }))}\n`);
      }
      return;
    }
    throw error;
  }
}

main(process.argv).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`minicode: internal error: ${message}\n`);
  process.exitCode = 1;
});
