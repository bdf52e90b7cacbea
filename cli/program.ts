import { Command } from 'commander';
import { registerAcp } from './commands/acp.js';
import { registerBatch } from './commands/batch.js';
import type { ChatFlags } from './chat-action.js';
import { addChatFlags, registerChat } from './commands/chat.js';
import { registerExec } from './commands/exec.js';
import { registerIngest } from './commands/ingest.js';
import { registerMcp } from './commands/mcp.js';
import { registerReplay } from './commands/replay.js';
import { registerRun } from './commands/run.js';
import { registerSchema } from './commands/schema.js';
import { registerSessions } from './commands/sessions.js';
import { registerScrub } from './commands/scrub.js';
import { registerUndo } from './commands/undo.js';
import { VERSION } from '../lib/version.js';
import { neutralise } from '../lib/safe-text.js';
import { scrubArtefact } from '../lib/artefacts.js';
import { closestName } from '../lib/did-you-mean.js';
import { environmentHelp } from '../lib/environment.js';

/** Examples under the top-level help. */
export const EXAMPLES = `Examples:
  minicode                                   chat in this project (a terminal)
  minicode exec "fix the failing test"       one run; --json for programs
  minicode exec --base-url http://127.0.0.1:8000/v1 --model qwen "explain src/"
  minicode --continue                        reopen the last chat of this directory
  minicode batch prompts.jsonl --out runs/a  many prompts; minicode batch report runs/a
  minicode sessions --limit 5                the newest stored sessions`;

/**
 * The minicode CLI. Each command lives in `cli/commands/<name>.ts` and registers its flags
 * here; heavy modules are imported inside the action so that start-up stays small.
 * Usage errors (unknown command or flag, bad flag value) print one line and exit 2.
 *
 * `argv` (process.argv) lets the hot path skip work: when it names `exec`, only `exec` is
 * registered, since commander dispatches to it before it would ever look at the others (their
 * names matter only for the top-level help and an unknown command's suggestion).
 */
export function buildProgram(argv: readonly string[] = []): Command {
  const program = new Command();
  program
    .name('minicode')
    .description('A coding-agent runtime: one streaming event pipeline for providers and native agent CLIs.')
    .version(VERSION, '-V, --version')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      // Commander prints "error: ..." itself; keep it one line on stderr, the argument it quotes
      // (an unknown option, a bad choice) with its control characters shown escaped and a
      // credential in it masked.
      writeErr: (s) => process.stderr.write(s),
      // Commander's "(Did you mean --model?)" comes on a line of its own: kept, on the same line.
      outputError: (s, write) => write(scrubArtefact(neutralise(withPromptHint(oneErrorLine(s)))) + '\n'),
    });
  // Program options are positional (only before a command) so `exec --provider ...` still reaches exec.
  program.enablePositionalOptions().allowExcessArguments(true);
  registerExec(program);
  if (argv[2] === 'exec') return refuseExcessArguments(program);
  registerIngest(program);
  registerRun(program);
  registerSchema(program);
  registerSessions(program);
  registerReplay(program);
  registerAcp(program);
  registerScrub(program);
  registerChat(program);
  registerBatch(program);
  registerUndo(program);
  registerMcp(program);
  program.addHelpText('after', () => `\n${EXAMPLES}\n\n${environmentHelp()}\n`);
  // No command: the interactive mode on a terminal, the help otherwise.
  addChatFlags(program).action(async (flags: ChatFlags) => {
    if (program.args.length > 0) {
      const typed = program.args[0]!;
      const near = closestName(
        typed,
        program.commands.map((c) => c.name()),
      );
      program.error(`error: unknown command '${typed}'${near ? ` (Did you mean ${near}?)` : ''}`, {
        exitCode: 2,
        code: 'commander.unknownCommand',
      });
    }
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      program.outputHelp();
      return;
    }
    const { chatAction } = await import('./chat-action.js');
    process.exitCode = await chatAction(flags);
  });
  return refuseExcessArguments(program);
}

/** Commander's error text on one line: its first line and a "(Did you mean ...?)" line after it. */
export function oneErrorLine(text: string): string {
  const [first = '', ...rest] = text.split('\n');
  const hint = rest.find((l) => /^\(Did you mean /.test(l.trim()));
  return hint ? `${first} ${hint.trim()}` : first;
}

/** A prompt of several unquoted words is the likely cause of extra arguments to `exec` or `run`. */
export function withPromptHint(message: string): string {
  const command = /too many arguments for '(exec|run)'/.exec(message)?.[1];
  return command ? `${message} Quote the prompt as one argument: minicode ${command} "fix the failing test"` : message;
}

/**
 * Commander lets a command take more arguments than it declares when its parent does (the
 * program's own action reports an unknown command itself). A command's extra words are a usage
 * error, not something to drop: `minicode exec fix the bug` would otherwise run the prompt "fix".
 */
function refuseExcessArguments(program: Command): Command {
  const refuse = (command: Command): void => {
    command.allowExcessArguments(false);
    for (const sub of command.commands) refuse(sub);
  };
  for (const command of program.commands) refuse(command);
  return program;
}
