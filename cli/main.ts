#!/usr/bin/env node
import { CommanderError } from 'commander';
import { buildProgram } from './program.js';

async function main(argv: string[]): Promise<void> {
  // A closed pipe (`minicode schema | head`) is not an error worth a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const program = buildProgram();
  for (const command of program.commands) command.exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
        process.exitCode = 0;
        return;
      }
      process.exitCode = 2;
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
