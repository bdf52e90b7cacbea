/**
 * `minicode chat`: set up the provider and store like `exec`, open (or reopen) the session and
 * hand the terminal to the interactive app. Needs a TTY on both stdin and stdout: without one
 * it says so and exits 2 (use `minicode exec` for scripts).
 */
import { runChatApp } from '../lib/chat/app.js';
import path from 'node:path';
import { createChatSession, latestChatSession, resumeFlags, type ChatSession } from '../lib/chat/session.js';
import { resolveStoreDir } from '../lib/store/location.js';
import { MinicodeError } from '../lib/errors.js';
import { checkSessionId } from '../lib/ids.js';
import { openRunStore, prepareRun, startRunMcp, type ExecFlags, type RunSetup } from '../lib/agent/run-setup.js';
import { exitAfterHangUp } from './stdout.js';
import { tracingConfig } from '../lib/telemetry/config.js';
import type { ChatTrace } from '../lib/telemetry/chat-trace.js';
import { failureLine } from '../lib/failure-line.js';

/** Flags of `minicode chat` (and of `minicode` with no command). */
export interface ChatFlags extends ExecFlags {
  continue?: boolean;
  resume?: string;
}

/** How long a hang-up or SIGTERM waits for the turn to settle (a tool's kill grace is 2 s). */
const STOP_GRACE_MS = 5_000;

/** Run the interactive mode; returns the exit code. */
export async function chatAction(flags: ChatFlags): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    process.stderr.write(
      'minicode: chat needs a terminal (stdin and stdout a TTY)\n  for scripts use: minicode exec PROMPT [--json]\n',
    );
    return 2;
  }
  if (flags.continue && flags.resume !== undefined) {
    process.stderr.write('minicode: pass either --continue or --resume SESSION, not both\n');
    return 2;
  }
  let setup: RunSetup | undefined;
  let store: Awaited<ReturnType<typeof openRunStore>> | undefined;
  let trace: ChatTrace | undefined;
  try {
    if (flags.resume !== undefined) checkSessionId(flags.resume, '--resume');
    const tracing = tracingConfig(process.env);
    // The store first: a reopened session's provider and model are the ones it ran with.
    store = await openRunStore(resolveStoreDir({ flag: flags.store, env: process.env }));
    let resume = flags.resume;
    if (flags.continue) {
      const cwd = path.resolve(flags.cwd ?? process.cwd());
      resume = latestChatSession(store, cwd);
      if (resume === undefined)
        throw new MinicodeError('MINICODE_E_SESSION_NOT_FOUND', `no interactive session stored for ${cwd}`, {
          action: 'start one with `minicode`',
        });
    }
    setup = await prepareRun(resume !== undefined ? resumeFlags(flags, store, resume, process.env) : flags);
    await startRunMcp(setup);
    // OpenTelemetry only when an endpoint is set: the exporter is not even loaded otherwise.
    trace = tracing
      ? (await import('../lib/telemetry/chat-trace.js')).startChatTrace(tracing, {
          env: process.env,
          provider: setup.provider.format,
          model: setup.provider.model,
          onWarning: (message) => process.stderr.write(`minicode: ${message}\n`),
        })
      : undefined;
    const turnTracer = trace;
    const ready = setup;
    const openSession = (
      provider: ChatSession['provider'],
      reopen: string | undefined,
      cleared = false,
    ): ChatSession => {
      const session = createChatSession({
        provider,
        limits: ready.limits,
        environment: ready.environment,
        mcp: ready.mcp,
        prompting: ready.prompting,
        store: store!,
        resume: reopen,
        cleared,
        // Called at each turn, once `session` exists: the turn's provider and model, after any `/model`.
        traceTurn: turnTracer
          ? (prompt: string, turn: number) => turnTracer.turn(prompt, turn, session.provider)
          : undefined,
      });
      return session;
    };
    const session = openSession(setup.provider, resume);
    const stop = new AbortController();
    let hungUp = false;
    const quit = (): void => {
      if (!hungUp) process.stdin.setRawMode?.(false);
      process.exit(130);
    };
    const hangUp = (): void => {
      hungUp = true;
      exitAfterHangUp();
    };
    const stopApp = (): void => {
      // The app stops what runs (a tool's process group with it), ends the session and restores
      // the terminal; what does not settle within a few seconds is left as the store has it.
      stop.abort();
      setTimeout(quit, STOP_GRACE_MS).unref();
    };
    const onSignal = (signal: NodeJS.Signals): void => {
      // A closed window's SIGHUP after its input ended (or twice) is one hang-up.
      if (signal === 'SIGHUP' && hungUp) return;
      if (signal === 'SIGHUP') hangUp();
      // A second signal does not wait; the store keeps what was committed.
      if (stop.signal.aborted) return quit();
      stopApp();
    };
    // A terminal gone without a signal (the shell above it ignores SIGHUP): its input ends, or
    // fails with EIO (no crash), and the session would otherwise wait for keys forever.
    const onInputGone = (): void => {
      if (hungUp) return;
      hangUp();
      if (!stop.signal.aborted) stopApp();
    };
    process.on('SIGHUP', onSignal);
    process.on('SIGTERM', onSignal);
    process.stdin.on('end', onInputGone);
    process.stdin.on('error', onInputGone);
    try {
      await (await import('../lib/render/markdown/index.js')).loadMarkdown();
      return await runChatApp({
        session,
        store,
        cwd: setup.environment.cwd,
        input: process.stdin,
        output: process.stdout,
        stop: stop.signal,
        newSession: (ending) => openSession(ending.provider, undefined, true),
      });
    } finally {
      process.off('SIGHUP', onSignal);
      process.off('SIGTERM', onSignal);
      process.stdin.off('end', onInputGone);
      process.stdin.off('error', onInputGone);
    }
  } catch (error) {
    if (!(error instanceof MinicodeError)) throw error;
    process.stderr.write(failureLine(error));
    return error.exitCode;
  } finally {
    await trace?.shutdown();
    await store?.close();
    await setup?.close();
  }
}
