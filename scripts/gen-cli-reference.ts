/**
 * Regenerates docs/cli.md from the commander definitions, so the reference cannot drift from
 * the flags: `npm run build && node dist/scripts/gen-cli-reference.js`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProgram, EXAMPLES } from '../cli/program.js';
import { environmentHelp } from '../lib/environment.js';

/** The reference text: the top-level help, then each command's help and its subcommands'. */
export function cliReference(): string {
  const program = buildProgram();
  program.configureHelp({ helpWidth: 100 });
  const parts = [
    '# CLI reference',
    '',
    'Generated from the command definitions by `node dist/scripts/gen-cli-reference.js`; a test keeps it in step.',
    '',
    'Exit codes: 0 success (for `exec`, `run`: the run completed), 1 a run that did not complete or a setup failure, 2 a usage error (unknown command or flag, bad flag value, more arguments than the command takes (an unquoted prompt of several words), empty prompt, invalid session id), 75 (`batch`) the output directory is in use by another batch, 130 interrupted by Ctrl+C. A reader that closes stdout early does not change the exit code: the work goes on to its end (docs/exec.md).',
    '',
    '## minicode',
    '',
    '```',
    program.helpInformation().trimEnd(),
    '',
    EXAMPLES,
    '',
    environmentHelp(100),
    '```',
  ];
  for (const command of program.commands) {
    if (command.name() === 'help') continue;
    command.configureHelp({ helpWidth: 100 });
    parts.push('', `## minicode ${command.name()}`, '', '```', command.helpInformation().trimEnd(), '```');
    // Subcommands (`mcp list`, ...) get their own help, one level down.
    for (const sub of command.commands) {
      if (sub.name() === 'help') continue;
      sub.configureHelp({ helpWidth: 100 });
      parts.push('', `### minicode ${command.name()} ${sub.name()}`, '', '```', sub.helpInformation().trimEnd(), '```');
    }
  }
  return parts.join('\n') + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  fs.writeFileSync(path.join(root, 'docs/cli.md'), cliReference());
}
