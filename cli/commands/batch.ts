import { Command } from 'commander';
import { DEFAULT_POOL_NICE } from '../../lib/batch/nice.js';
import type { BatchFlags } from '../batch-action.js';
import { addCheckpointFlag, addOutputSchemaFlag, addRunFlags } from './exec.js';

/**
 * `minicode batch FILE.jsonl`: many prompts (`{"id", "prompt", ...}` per line), each a full
 * stored run, with adaptive concurrency, resumable output (results.jsonl, errors.jsonl,
 * summary.json), progress, and a BullMQ mode (`--queue`, `--worker`) beyond one machine.
 * `--isolate` and `--verify` make it an evaluation harness (docs/batch.md).
 * Exit codes: 0 every id completed (and, with --verify, every verify passed unless
 * --verify-soft), 1 some failed / not run / failed verify / setup failure, 2 usage or input
 * error (duplicate ids, bad lines under --strict), 75 the output directory is held by another
 * batch (MINICODE_E_BATCH_LOCKED), 130 interrupted. A closed stdout does not stop the batch.
 */
export function registerBatch(program: Command): void {
  const command = program
    .command('batch')
    .description('run every prompt of a JSONL file as its own agent run; re-run the same command to resume')
    .argument('[file]', 'JSONL input, one {"id", "prompt", ...} per line (not with --worker)')
    .option('--out <dir>', 'output directory (default: ./minicode-batch-<input name>)')
    .option(
      '--concurrency <n>',
      'runs executing at once (adaptive: halved on 429/529, recovered additively; a run waiting only for its store sync has handed its slot on)',
      '4',
    )
    .option('--strict', 'fail the batch (exit 2) when any line is invalid instead of skipping it')
    .option('--retry-errors', 're-run only the ids recorded in errors.jsonl (old records go to superseded.jsonl)')
    .option('--fail-fast', 'stop starting runs once a provider reports an exhausted usage quota')
    .option(
      '--batch-budget <usd>',
      "stop starting runs once the batch's summed cost passes this many USD (--budget is per run)",
    )
    .option(
      '--threads <n>',
      'worker-pool threads for the runs (0: all on the main thread; default: cores - 1, at least 1, at most 4, for batches of 16 lines or more)',
    )
    .option(
      '--nice <n>',
      `nice value (0-19) of the pool threads and every subprocess they start, so the coordinator is scheduled first on a loaded machine (0: the same priority; default ${DEFAULT_POOL_NICE}; Linux, a no-op where not supported)`,
    )
    .option(
      '--verify <cmd>',
      'after each line\'s run, run this command in its workspace (a line\'s own "verify" wins); the record gets verify: {ok, exitCode, durationMs, outputTail}',
    )
    .option(
      '--verify-soft',
      'a failed verify is reported (records, summary, the closing line) but does not make the exit code 1',
    )
    .option('--verify-timeout <ms>', 'kill a verify command after this many milliseconds (default 600000)')
    .option(
      '--isolate <mode>',
      "worktree (a git worktree of the line's cwd at HEAD) | copy (a copy of the folder) | none; each line's changes go to OUT/patches/<id>.diff",
      'none',
    )
    .option('--isolate-dirty', 'with --isolate worktree: bring uncommitted and untracked files into each worktree')
    .option('--keep-workspaces', 'leave each isolated workspace in place (its path in the record\'s "workspace")')
    .option(
      '--epochs <n>',
      'run each line this many times, each attempt its own session and record (`attempt`); a line\'s "epochs" wins; pass rates, pass@k and the spread between epochs in summary.json (default 1)',
    )
    .option(
      '--retries <n>',
      "run a run again after a transient failure (network, 429/5xx after the provider's own retries, a pool thread that died), at most this many times, waiting --retry-backoff, doubled each time; agent and scorer failures are results, never retried (default 2)",
    )
    .option(
      '--retry-backoff <ms>',
      'the wait before the first retry of a run, doubled for each further one, at most 60 s (default 2000)',
    )
    .option(
      '--line-timeout <ms>',
      'wall-clock limit of each line: its run, verify command and scorers together; a line\'s "timeout" wins; a line past it ends line_timeout (MINICODE_E_LINE_TIMEOUT), never retried (default none)',
    )
    .option(
      '--otel-endpoint <url>',
      'export OpenTelemetry spans (GenAI conventions) to this OTLP/HTTP base URL (default: OTEL_EXPORTER_OTLP_ENDPOINT; /v1/traces is appended)',
    )
    .option('--json', 'progress as JSON lines on stdout and one summary line last')
    .option('--queue <url>', 'distribute through BullMQ on Redis (redis://HOST:PORT)')
    .option('--queue-name <name>', 'BullMQ queue name shared by producer and workers', 'minicode-batch')
    .option('--worker', 'with --queue: run jobs from the queue until interrupted');
  addOutputSchemaFlag(addCheckpointFlag(addRunFlags(command))).action(
    async (file: string | undefined, flags: BatchFlags) => {
      const { batchAction } = await import('../batch-action.js');
      process.exitCode = await batchAction(file, flags);
    },
  );
  registerBatchReport(command);
  registerBatchCompare(command);
}

/**
 * `minicode batch compare A B [--json]`: the paired pass-rate comparison of two batch outputs
 * (lib/batch/report/significance.ts) as the Markdown sentence, or as one JSON object. Exit 0, 1
 * when a folder is not a batch output (MINICODE_E_BATCH_REPORT).
 */
function registerBatchCompare(batch: Command): void {
  batch
    .command('compare')
    .description(
      "compare two batch outputs' pass rates, paired by (id, attempt): difference, 95% paired bootstrap interval, McNemar exact p, regressed lines",
    )
    .argument('<a>', 'the first batch output folder (A)')
    .argument('<b>', 'the second batch output folder (B)')
    .option('--json', 'print the comparison as one JSON object')
    .action(async (a: string, b: string, flags: { json?: boolean }) => {
      const { batchCompareAction } = await import('../batch-report-action.js');
      process.exitCode = await batchCompareAction(a, b, flags);
    });
}

/**
 * `minicode batch report OUT [--compare OUT2]`: write OUT/report.html (self-contained: no
 * network) and print a Markdown summary. Exit 0, 1 when a folder is not a batch output
 * (MINICODE_E_BATCH_REPORT), 2 on usage errors.
 */
function registerBatchReport(batch: Command): void {
  batch
    .command('report')
    .description(
      'write OUT/report.html (a self-contained HTML report of a batch output folder) and print a Markdown summary',
    )
    .argument('<out>', "a batch's output folder (its --out)")
    .option('--compare <out2>', 'a second output folder to compare with, line by line (same ids) and in aggregate')
    .option(
      '--store <dir>',
      "the store holding the runs' sessions, for each line's transcript (default: $MINICODE_HOME/store, else $XDG_DATA_HOME/minicode/store or ~/.local/share/minicode/store)",
    )
    .action(async (out: string, flags: { compare?: string; store?: string }) => {
      const { batchReportAction } = await import('../batch-report-action.js');
      process.exitCode = await batchReportAction(out, flags);
    });
}
