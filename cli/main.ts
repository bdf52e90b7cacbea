#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { registerAcp } from './commands/acp.js';
import { registerBatch } from './commands/batch.js';
import { registerBench } from './commands/bench.js';
import { registerExec } from './commands/exec.js';
import { registerReplay } from './commands/replay.js';
import { registerSchema } from './commands/schema.js';
import { registerSessions } from './commands/sessions.js';
import { registerScrub } from './commands/scrub.js';
import { VERSION } from './version.js';

/**
 * The minicode CLI. Each command lives in `cli/commands/<name>.ts` and registers its flags
 * here; heavy modules are imported inside the action so that start-up stays small.
 * Usage errors (unknown command or flag, bad flag value) print one line and exit 2.
 */
export function buildProgram(): Command {
  const program = new Command();
  program
    .name('minicode')
    .description('A coding-agent runtime: one streaming event pipeline for providers and native agent CLIs.')
    .version(VERSION, '-V, --version')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      // Commander prints "error: ..." itself; keep it one line on stderr.
      writeErr: (s) => process.stderr.write(s),
      outputError: (s, write) => write(s.split('\n')[0] + '\n'),
    });
  registerExec(program);
  registerSchema(program);
  registerBench(program);
  registerSessions(program);
  registerReplay(program);
  registerAcp(program);
  registerScrub(program);
  registerBatch(program);
  return program;
}

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
