import type { Command } from 'commander';

/** `minicode bench [--json] [--quick] [--only NAME...]`: run every benchmark in bench/, each in its own process. */
export function registerBench(program: Command): void {
  program
    .command('bench')
    .description('run the throughput benchmarks (each against a named peer or a floor) and print medians and ratios')
    .option('--json', 'print one JSON document with every report')
    .option('--quick', 'fewer rounds and smaller inputs (the whole suite in under 3 minutes)')
    .option('--only <names...>', 'run only these benchmarks (file names without extension)')
    .option('--out <file>', 'also write the JSON document to this file')
    .action(async (options: { json?: boolean; quick?: boolean; only?: string[]; out?: string }) => {
      // bench/ is compiled apart from the CLI's bundle: its errors are instances of its own copy of the class.
      const { runBenchSuite, MinicodeError } = await import('../../bench/suite.js');
      try {
        process.exitCode = await runBenchSuite({
          json: options.json ?? false,
          quick: options.quick ?? false,
          only: options.only ?? [],
          out: options.out,
        });
      } catch (error) {
        if (!(error instanceof MinicodeError)) throw error;
        if (options.json) process.stdout.write(`${JSON.stringify({ ok: false, error: { category: error.category, code: error.code, message: error.message, action: error.action } })}\n`);
        process.stderr.write(`minicode bench: ${error.code}: ${error.message}\n  ${error.action ?? ''}\n`);
        process.exitCode = error.exitCode;
      }
    });
}
