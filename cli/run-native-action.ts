/** `minicode run --agent`: a native agent CLI supervised through the run pipeline. */
import { promptDigestOf } from '../lib/agent/run-prompt.js';
import type { WorkspaceCheckpoints } from '../lib/checkpoints/turn.js';
import type { EventDraft } from '../lib/events/index.js';
import { checkPrompt, directoryFlag } from '../lib/agent/run-setup.js';
import { MinicodeError } from '../lib/errors.js';
import { newSessionId } from '../lib/ids.js';
import type { NativeAgent } from '../lib/decode/formats.js';
import { createTranscriptCollector } from '../lib/native/handoff-prompt.js';
import { resolveAgentBinary } from '../lib/native/supervisor.js';
import { parseAgentChain, quotaGraceOf, runAgentWorkflow } from '../lib/native/workflow.js';
import { createRunPipeline } from '../lib/pipeline/compose.js';
import { outputPortOf } from '../lib/pipeline/output.js';
import { createRenderer, reportSetupFailure } from '../lib/render/index.js';
import { createEventScrubber } from '../lib/scrub/scrub-stage.js';
import { openStore, resolveStoreDir } from '../lib/store/index.js';
import { guardOutput, noteClosedStdout, onHangUp, writeErr } from './stdout.js';
import { tracingConfig, type TracingConfig } from '../lib/telemetry/config.js';
import { definedOnly } from '../lib/defined-only.js';

const out = (text: string): void => outputPortOf(guardOutput(process.stdout)).write(text);
const err = writeErr;

/** Run the agent; returns the exit code. */
export async function runNativeAction(
  prompt: string,
  flags: {
    agent: string;
    fallback?: string;
    json?: boolean;
    store?: string;
    cwd?: string;
    model?: string;
    verbose?: boolean;
    checkpoint?: boolean;
  },
): Promise<number> {
  const agent = flags.agent as NativeAgent;
  let cwd: string;
  let store: ReturnType<typeof openStore>;
  let agents: NativeAgent[];
  let quotaGraceMs: number;
  let tracing: TracingConfig | undefined;
  try {
    agents = parseAgentChain(agent, flags.fallback);
    quotaGraceMs = quotaGraceOf(process.env);
    tracing = tracingConfig(process.env);
    cwd = directoryFlag(flags.cwd ?? process.cwd(), '--cwd', { mustExist: true });
    checkPrompt(prompt, `minicode run --agent ${agent}`);
    for (const each of agents) resolveAgentBinary(each);
    store = openStore({ dir: resolveStoreDir({ flag: flags.store }) });
  } catch (error) {
    if (!(error instanceof MinicodeError)) throw error;
    return reportSetupFailure(error, { json: flags.json, out, err, prompt });
  }
  const renderer = flags.json
    ? createRenderer('jsonl', { out, err })
    : createRenderer(process.stdout.isTTY ? 'tty' : 'linear', {
        out,
        err,
        stream: process.stdout,
        verbosity: flags.verbose ? 'verbose' : 'normal',
      });
  const sessionId = newSessionId();
  const transcript = createTranscriptCollector(agent);
  // OpenTelemetry only when an endpoint is set: the exporter is not even loaded otherwise.
  const trace = tracing
    ? (await import('../lib/telemetry/native-run-trace.js')).startNativeRunTrace(tracing, {
        env: process.env,
        agents,
        model: flags.model || undefined,
        prompt,
        onWarning: (message) => err(`minicode: ${message}\n`),
      })
    : undefined;
  const pipeline = createRunPipeline({
    sessionId,
    scrubber: createEventScrubber(),
    renderer,
    store,
    output: outputPortOf(guardOutput(process.stdout)),
    onEvent: (event) => {
      transcript.observe(event);
      trace?.onEvent(event);
    },
  });
  // Registered before `session.started` is out, so a signal from then on settles the session
  // (aborted) instead of killing the process with the session open.
  const abort = new AbortController();
  let interrupts = 0;
  const onSignal = (): void => {
    if (++interrupts === 1) abort.abort();
    else process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A closed window (SIGHUP) stops the run as Ctrl+C does; a hung-up terminal's descriptors close at exit.
  const offHangUp = onHangUp(onSignal);
  pipeline.emit({
    type: 'session.started',
    payload: { origin: 'run', cwd, agent, promptDigest: promptDigestOf(prompt) },
    fidelity: 'synthetic',
  });
  pipeline.emit({
    type: 'user.message.received',
    payload: { messageId: 'user-1', text: prompt },
    fidelity: 'synthetic',
  });
  try {
    const checkpoints = await nativeRunCheckpoints(flags.checkpoint, cwd, sessionId, (d) => pipeline.emit(d));
    const { exit } = await runAgentWorkflow({
      agents,
      prompt,
      cwd,
      signal: abort.signal,
      emit: (d) => pipeline.emit(d),
      write: (drafts) => pipeline.write(drafts),
      settled: () => pipeline.settled(),
      transcript,
      quotaGraceMs,
      durable: async () => {
        await pipeline.settled();
        await store.flushed();
      },
      extraArgs: flags.model ? ['--model', flags.model] : undefined,
      checkpoints,
      onAgentStart: trace ? (each: NativeAgent, index: number) => trace.agentStarted(each, index) : undefined,
    });
    const state = await pipeline.settled();
    const outcome = state.run.outcome === 'running' ? 'interrupted' : state.run.outcome;
    pipeline.emit({
      type: 'session.ended',
      payload: definedOnly({
        outcome,
        reason: state.run.reason && state.run.reason !== 'parent-ended' ? state.run.reason : undefined,
      }),
      fidelity: 'synthetic',
    });
    const final = await pipeline.finish();
    await trace?.finish(
      final.run.outcome === 'completed'
        ? { ok: true }
        : { ok: false, error: final.run.error?.code ?? (exit.aborted ? 'aborted' : final.run.outcome) },
    );
    if (!flags.json) err(`session ${sessionId} (minicode replay ${sessionId})\n`);
    else noteClosedStdout(`minicode replay ${sessionId} --json`);
    if (exit.aborted) return 130;
    return final.run.outcome === 'completed' ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    offHangUp();
    await store.close();
  }
}

/** The run's checkpoint hooks (the agent's whole run is turn 1), unless `--no-checkpoint` or config `checkpoints: false`. */
async function nativeRunCheckpoints(
  flag: boolean | undefined,
  cwd: string,
  sessionId: string,
  emit: (draft: EventDraft) => void,
): Promise<WorkspaceCheckpoints | undefined> {
  const [{ checkpointSettingsOf }, { loadConfig }] = await Promise.all([
    import('../lib/checkpoints/settings.js'),
    import('../lib/config-files.js'),
  ]);
  const settings = checkpointSettingsOf({ flag, config: (await loadConfig({ cwd })).config.checkpoints });
  if (!settings) return undefined;
  const { createTurnCheckpoints } = await import('../lib/checkpoints/turn.js');
  return createTurnCheckpoints({ settings, cwd, sessionId, turn: 1, emit });
}
