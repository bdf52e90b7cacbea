import { bashTool } from '../tools/bash.js';
import type { SandboxSettings } from '../sandbox/settings.js';
import { DEFAULT_TOOL_LIMITS } from '../tools/types.js';
import { definedOnly } from '../defined-only.js';

/** The `verify` field of a success summary (seed automation-ci): present only when it ran. */
export interface VerifyReport {
  active: true;
  ok: boolean;
  /** The operator's command, not its output. */
  command: string;
}

/** What running the verify command gave, with the bounded output for the human log. */
export interface VerifyRun {
  report: VerifyReport;
  exitCode?: number;
  output: string;
  durationMs: number;
}

/**
 * Run the operator's verify command after the run: `bash -c` in the workspace, in the run's
 * sandbox (`sandbox`, absent: none), credentials scrubbed, output capped like the bash tool,
 * killed at `timeoutMs` (default 10 minutes). A timeout or a non-zero exit is `ok: false`, never
 * a thrown error.
 */
export async function runVerify(
  command: string,
  options: {
    cwd: string;
    signal?: AbortSignal | undefined;
    timeoutMs?: number | undefined;
    env?: NodeJS.ProcessEnv | undefined;
    sandbox?: SandboxSettings | undefined;
    clock?: (() => number) | undefined;
  },
): Promise<VerifyRun> {
  const clock = options.clock ?? Date.now;
  const started = clock();
  const outcome = await bashTool.run(
    { command, timeout_ms: options.timeoutMs ?? 600_000 },
    {
      cwd: options.cwd,
      signal: options.signal ?? new AbortController().signal,
      approve: async () => 'deny',
      limits: { ...DEFAULT_TOOL_LIMITS, bashTimeoutMs: options.timeoutMs ?? 600_000 },
      env: options.env,
      sandbox: options.sandbox,
    },
  );
  const durationMs = Math.max(0, clock() - started);
  const ok = outcome.status === 'completed';
  const output =
    outcome.status === 'denied'
      ? outcome.reason
      : outcome.status === 'completed'
        ? outcome.output
        : (outcome.output ?? outcome.message);
  const exitCode = outcome.status === 'denied' ? undefined : outcome.receipt?.exitCode;
  return definedOnly({ report: { active: true, ok, command }, exitCode, output, durationMs });
}
