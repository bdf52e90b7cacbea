/**
 * `minicode exec`: one agent run rendered for a person (TTY or linear) or a program (--json),
 * stored in the session store. The setup-failure contract: under --json exactly one
 * `{"type":"summary","ok":false,...}` line on stdout, the human message on stderr, exit 1
 * (2 for usage errors).
 *
 * The store is not part of that setup: it opens once `session.started` is out (runPrompt's
 * `openStore`), so lmdb is not on the first line's path. A store that cannot be opened ends
 * the run before its first turn: `session.started`, then the one `ok:false` summary with the
 * store's error, the human message on stderr, exit 1, nothing stored.
 */
import { interaction } from '../lib/agent/interaction.js';
import { runPrompt } from '../lib/agent/run-prompt.js';
import { ERROR_CODES, isThrownCode, MinicodeError } from '../lib/errors.js';
import { terminationCode } from '../lib/control/termination.js';
import { deadlineMs } from '../lib/flag-values.js';
import { createChildJsonlRenderer, createJsonlRenderer, reportSetupFailure } from '../lib/render/jsonl.js';
import { viewOf } from '../lib/render/state-view.js';
import type { Renderer } from '../lib/render/types.js';
import type { ReducerState } from '../lib/reducer/index.js';
import { resolveVerifyCommand } from '../lib/verify/detect.js';
import {
  checkPrompt,
  openRunStore,
  prepareRun,
  startRunMcp,
  type ExecFlags,
  type RunSetup,
} from '../lib/agent/run-setup.js';
import type { EventStore } from '../lib/store/store.js';
import { guardOutput, noteClosedStdout, onHangUp, writeErr } from './stdout.js';
import { outputPortOf } from '../lib/pipeline/output.js';
import type { OutputEvent, TerminationReason } from '../lib/events/index.js';
import { tracingConfig, type TracingConfig } from '../lib/telemetry/config.js';
import { mark } from '../lib/timeline.js';
import type { ImageAttachment } from '../lib/images/load.js';
import { definedOnly } from '../lib/defined-only.js';
import { failureLine } from '../lib/failure-line.js';

/** stdout for the renderer and the setup-failure line: coalesced, drained by the pipeline. */
const out = (text: string): void => outputPortOf(guardOutput(process.stdout)).write(text);
const err = writeErr;

/** Exit code of a settled run: 0 completed, else its termination code's (130 aborted, 65 result_invalid, 1 the others). */
export function exitCodeFor(reason: TerminationReason): number {
  if (reason === 'completed') return 0;
  const code = terminationCode(reason);
  return isThrownCode(code) ? ERROR_CODES[code].exitCode : 1;
}

/** Run `exec`; returns the exit code. */
export async function execAction(argument: string | undefined, flags: ExecFlags): Promise<number> {
  // The argument until the prompt is read (a setup failure's summary names what was given).
  let prompt = argument ?? '';
  let setup: RunSetup | undefined;
  let store: EventStore | undefined;
  // The error the store's open failed with: the run reported it in its summary already.
  let storeError: unknown;
  let tracing: TracingConfig | undefined;
  let images: ImageAttachment[] = [];
  mark('exec: action');
  // Ctrl+C: during the set-up (MCP servers may be starting) it exits 130 through process.exit,
  // whose hook SIGKILLs any server group already started; once the run is under way the first
  // one aborts the run (it settles as `aborted`), a second one exits at once, and so does any
  // once the run has settled (its events are stored; what is left is closing). The handler
  // stays to the end of the process: a Ctrl+C while MCP servers, the store or the set-up close
  // always exits 130 through process.exit, never by the signal's default action (which would
  // leave the server groups running).
  const abort = new AbortController();
  let interrupts = 0;
  let running = false;
  let settled = false;
  const onSigint = (signal: NodeJS.Signals): void => {
    interrupts++;
    if (interrupts === 1 && running && !settled)
      abort.abort({ kind: 'aborted', code: 'MINICODE_E_ABORTED', message: `interrupted (${signal})` });
    else process.exit(130);
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  // A closed window (SIGHUP) stops the run as Ctrl+C does (its tools' process groups would
  // otherwise be left running), and once: a hung-up terminal's descriptors close at exit.
  onHangUp(() => onSigint('SIGHUP'));
  try {
    try {
      const { readPromptInput } = await import('./prompt-input.js');
      prompt = await readPromptInput({
        argument,
        promptFile: flags.promptFile,
        stdin: process.stdin,
        stdinWaitMs: deadlineMs(process.env.MINICODE_STDIN_WAIT_MS || undefined, 'MINICODE_STDIN_WAIT_MS'),
        onNote: (message) => err(`minicode: ${message}\n`),
      });
      checkPrompt(prompt, 'minicode exec');
      if (flags.image?.length) {
        const { loadImageFile } = await import('../lib/images/load.js');
        images = flags.image.map((file) => loadImageFile(file));
      }
      tracing = tracingConfig(process.env);
      setup = await prepareRun(flags);
      if (images.length > 0) (await import('../lib/images/vision.js')).checkVision(setup.provider.model, images.length);
      mark('exec: flags, config and provider resolved');
      await startRunMcp(setup);
    } catch (error) {
      if (!(error instanceof MinicodeError)) throw error;
      return reportSetupFailure(error, { json: flags.json, out, err, prompt });
    }
    const json = flags.json === true;
    // The TTY and linear renderers (and chalk) load only for a person: --json never needs them.
    let renderer: Renderer<ReducerState>;
    if (json) renderer = createJsonlRenderer({ out, err, viewOf });
    else {
      const { createRenderer, loadMarkdown } = await import('../lib/render/index.js');
      if (process.stdout.isTTY) await loadMarkdown();
      renderer = createRenderer(process.stdout.isTTY ? 'tty' : 'linear', {
        out,
        err,
        stream: process.stdout,
        verbosity: flags.verbose ? 'verbose' : 'normal',
      });
    }
    const verify = resolveVerifyCommand({
      flag: flags.verify,
      config: setup.loaded.config,
      cwd: setup.environment.cwd,
    });
    // From here a signal aborts the run instead of exiting (see the handlers above).
    running = true;
    // An invariant guard: if the event loop ever drains while the run is unsettled (nothing
    // left holding the process open), exit 1 with a message rather than 0 with no summary.
    const onBeforeExit = (): void => {
      err('minicode: internal error: the run stopped without settling\n');
      process.exitCode = 1;
    };
    process.once('beforeExit', onBeforeExit);
    // The store opens after the first line (runPrompt calls this once it is out).
    const storeDir = setup.storeDir;
    const openStore = async (): Promise<EventStore> => {
      try {
        store = await openRunStore(storeDir);
      } catch (error) {
        storeError = error;
        throw error;
      }
      mark('exec: store opened');
      return store;
    };
    // OpenTelemetry only when an endpoint is set: the exporter is not even loaded otherwise.
    const trace = tracing
      ? (await import('../lib/telemetry/run-trace.js')).startRunTrace(tracing, {
          env: process.env,
          provider: setup.provider.format,
          model: setup.provider.model,
          prompt,
          onWarning: (message) => err(`minicode: ${message}\n`),
        })
      : undefined;
    try {
      const run = await runPrompt({
        origin: 'exec',
        prompt,
        images,
        provider: setup.provider,
        limits: setup.limits,
        environment: setup.environment,
        prompting: setup.prompting,
        interaction: interaction({ tty: !json && process.stdin.isTTY === true && process.stdout.isTTY === true }),
        signal: abort.signal,
        openStore,
        renderer,
        childRenderer: json
          ? () => createChildJsonlRenderer({ out, mode: flags.jsonChildren === 'summary' ? 'summary' : 'events' })
          : undefined,
        onEvent: trace ? (event: OutputEvent) => trace.onEvent(event) : undefined,
        output: outputPortOf(guardOutput(process.stdout)),
        verifyCommand: verify?.command,
        preamble: setup.loaded.ignoredLocal
          ? [
              {
                type: 'diagnostic.raised',
                payload: {
                  code: 'MINICODE_E_LOCAL_CONFIG_IGNORED',
                  message: `ignored ${setup.loaded.ignoredLocal}`,
                  action: 'pass --allow-local-config to trust it',
                  category: 'CONFIGURATION_ERROR',
                },
              },
            ]
          : [],
      });
      settled = true;
      await trace?.finish(
        run.result.reason === 'completed'
          ? { ok: true }
          : { ok: false, error: run.result.error?.code ?? run.result.reason },
      );
      noteClosedStdout(`minicode replay ${run.sessionId}${json ? ' --json' : ''}`);
      if (!json) err(`session ${run.sessionId} (minicode replay ${run.sessionId})\n`);
      return exitCodeFor(run.result.reason);
    } catch (error) {
      // Only the store's failures are reported in the summary (an open that failed, events it did
      // not acknowledge); anything else is not ours to hide.
      if (!(error instanceof MinicodeError) || (error !== storeError && error.code !== 'MINICODE_E_STORE')) throw error;
      await trace?.finish({ ok: false, error: error.code });
      err(failureLine(error));
      return error.exitCode;
    } finally {
      settled = true;
      await setup.mcp?.close();
      process.off('beforeExit', onBeforeExit);
    }
  } finally {
    await store?.close();
    await setup?.close();
  }
}
