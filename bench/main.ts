/**
 * `npm run bench -- [--quick] [--json] [--only NAME...] [--out FILE]` from the repository root:
 * build the CLI and this package, then run every benchmark of bench/ (each in its own process)
 * and print medians and ratios, or one JSON document with every report.
 *
 * A usage error (an unknown flag, an `--only` name that is no benchmark, an `--out` file that
 * cannot be written) prints one line on stderr (and, with `--json`, one `ok:false` line on
 * stdout) and exits 2.
 */
import path from 'node:path';
import { MinicodeError } from '../lib/errors.js';
import { runBenchSuite } from './suite.js';

const USAGE = 'usage: npm run bench -- [--quick] [--json] [--only NAME...] [--out FILE]';

/** The suite's options from the command line; `--only` takes the names that follow it. */
function parse(argv: readonly string[]): { json: boolean; quick: boolean; only: string[]; out?: string } {
  const options: { json: boolean; quick: boolean; only: string[]; out?: string } = {
    json: false,
    quick: false,
    only: [],
  };
  let inOnly = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--json') options.json = true;
    else if (arg === '--quick') options.quick = true;
    else if (arg === '--only') inOnly = true;
    // npm runs this package's script in bench/: a relative --out is meant from where `npm run` was typed.
    else if (arg === '--out' && argv[i + 1] !== undefined)
      options.out = path.resolve(process.env.INIT_CWD ?? process.cwd(), argv[++i] as string);
    else if (inOnly && !arg.startsWith('-')) {
      options.only.push(arg);
      continue;
    } else throw new MinicodeError('MINICODE_E_USAGE', `unknown argument ${JSON.stringify(arg)}`, { action: USAGE });
    inOnly = arg === '--only';
  }
  if (inOnly && options.only.length === 0)
    throw new MinicodeError('MINICODE_E_USAGE', '--only needs at least one benchmark name', { action: USAGE });
  return options;
}

async function main(argv: readonly string[]): Promise<number> {
  const json = argv.includes('--json');
  try {
    return await runBenchSuite(parse(argv));
  } catch (error) {
    if (!(error instanceof MinicodeError)) throw error;
    if (json)
      process.stdout.write(
        `${JSON.stringify({ ok: false, error: { category: error.category, code: error.code, message: error.message, action: error.action } })}\n`,
      );
    process.stderr.write(`bench: ${error.code}: ${error.message}\n  ${error.action ?? ''}\n`);
    return error.exitCode;
  }
}

process.exitCode = await main(process.argv.slice(2));
