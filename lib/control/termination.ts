/**
 * Termination: one reason and one settle point per run (control-plane §5). Several parties may
 * REQUEST a stop (kernel: max steps, post-compaction critical; CLI: deadline; driver: budget
 * watcher; user: abort); the first request wins and later ones are ignored. The reason travels
 * as the AbortSignal's reason, a plain `{kind, code, message}` so it survives any boundary and
 * a budget abort stays distinguishable from a user abort.
 */
import type { TerminationReason } from '../events/enums.js';
import type { ErrorCode, PlainError } from '../errors.js';
import { reportDropped } from '../debug.js';
import { realTimers, type Timers } from './timers.js';

export type { TerminationReason };

/** The reason carried by an aborted signal (the kernel's AgentError, as plain data). */
export interface AbortReason {
  kind: TerminationReason;
  code: ErrorCode;
  message: string;
}

const CODES: Record<TerminationReason, ErrorCode> = {
  completed: 'MINICODE_E_INTERNAL',
  max_steps_exceeded: 'MINICODE_E_MAX_STEPS',
  timeout: 'MINICODE_E_TIMEOUT',
  budget_exceeded: 'MINICODE_E_BUDGET_EXCEEDED',
  aborted: 'MINICODE_E_ABORTED',
  provider: 'MINICODE_E_PROVIDER',
  busy: 'MINICODE_E_BUSY',
  result_invalid: 'MINICODE_E_RESULT_INVALID',
  hook_stopped: 'MINICODE_E_HOOK_STOPPED',
};

/** The error code a run that ended for `kind` reports. */
export function terminationCode(kind: TerminationReason): ErrorCode {
  return CODES[kind];
}

/** Build the abort reason for a termination kind. */
export function abortReason(kind: TerminationReason, message: string = kind.replace(/_/g, ' ')): AbortReason {
  return { kind, code: CODES[kind], message };
}

/** The termination kind an abort reason stands for; a reason without a kind is a user abort. */
export function kindOfAbort(reason: unknown): TerminationReason {
  if (reason && typeof reason === 'object' && 'kind' in reason) {
    const kind = (reason as { kind: unknown }).kind;
    if (typeof kind === 'string' && kind in CODES) return kind as TerminationReason;
  }
  return 'aborted';
}

/**
 * One signal that aborts when any input aborts, with that input's reason. `dispose()` removes
 * the listeners (call it when the joined work ends, or listeners pile up on long-lived signals).
 */
export function joinSignals(...signals: (AbortSignal | undefined)[]): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const cleanups: (() => void)[] = [];
  const dispose = (): void => {
    for (const c of cleanups.splice(0)) c();
  };
  for (const s of signals) {
    if (!s) continue;
    if (s.aborted) {
      controller.abort(s.reason);
      dispose();
      break;
    }
    const onAbort = (): void => {
      controller.abort(s.reason);
      dispose();
    };
    s.addEventListener('abort', onAbort, { once: true });
    cleanups.push(() => s.removeEventListener('abort', onAbort));
  }
  return { signal: controller.signal, dispose };
}

/**
 * Race a promise against a signal: rejects with the signal's reason when it aborts first (at
 * once when it already has). The promise is always handled: it usually rejects too once the
 * signal aborted, and that rejection, had nothing listened, would end the process.
 */
export function withAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The single owner of a run's stop reason. */
export interface Termination {
  /** Aborts when any non-`completed` termination is requested (or a parent signal aborts). */
  readonly signal: AbortSignal;
  /** Request a stop. Returns true when this request decided the reason (first wins). */
  request(kind: TerminationReason, message?: string): boolean;
  /** The decided reason, once there is one. */
  readonly reason: AbortReason | undefined;
  /** Arm a run deadline: requests `timeout` after `ms`. Returns a disposer. */
  deadline(ms: number, timers?: Timers): () => void;
}

/** Create a termination owner; parent signals (user abort, CLI deadline) feed into it. */
export function createTermination(...parents: (AbortSignal | undefined)[]): Termination {
  const controller = new AbortController();
  let reason: AbortReason | undefined;
  const request = (kind: TerminationReason, message?: string): boolean => {
    if (reason) return false;
    reason = abortReason(kind, message);
    if (kind !== 'completed') controller.abort(reason);
    return true;
  };
  for (const p of parents) {
    if (!p) continue;
    const forward = (): void => {
      request(kindOfAbort(p.reason), messageOf(p.reason));
    };
    if (p.aborted) forward();
    else p.addEventListener('abort', forward, { once: true });
  }
  return {
    signal: controller.signal,
    request,
    get reason() {
      return reason;
    },
    deadline(ms, timers = realTimers) {
      const handle = timers.setTimeout(() => request('timeout', `run deadline of ${ms} ms passed`), ms);
      return () => timers.clearTimeout(handle);
    },
  };
}

function messageOf(reason: unknown): string | undefined {
  if (reason && typeof reason === 'object' && 'message' in reason)
    return String((reason as { message: unknown }).message);
  return undefined;
}

/** How a run ended: exactly one reason, the body's value when it completed, the error otherwise. */
export interface Settled<T> {
  reason: TerminationReason;
  value?: T;
  error?: PlainError;
}

/** How long {@link settleRun} waits, after a stop, for the body to unwind: 5,000 ms. */
export const SETTLE_DRAIN_MS = 5_000;

/** Options of {@link settleRun}. */
export interface SettleOptions {
  /** The bound on the wait for a stopped body to unwind; default {@link SETTLE_DRAIN_MS}. */
  drainMs?: number | undefined;
  /** Default the real timers. */
  timers?: Timers | undefined;
}

/**
 * The one settle point. Runs `body` with the termination's signal and decides the outcome:
 * a requested reason wins over whatever the body did afterwards; a body that returns settles
 * `completed`; an abort settles with the abort's kind; any other throw is a `provider` stop
 * (the kernel surfaces provider errors after retries are exhausted) with the error kept.
 *
 * The reason is decided the moment the signal aborts, but settleRun returns only once the body
 * has unwound (its stream closed, its tools killed), so that whatever the body still emits on
 * the way out (a response's `model.response.completed`, a tool's terminal) comes before the
 * run's terminal event. A body that ignores its signal is waited for `drainMs` at most.
 */
export async function settleRun<T>(
  termination: Termination,
  body: (signal: AbortSignal) => Promise<T>,
  options: SettleOptions = {},
): Promise<Settled<T>> {
  const running = body(termination.signal);
  let unwound = false;
  const ended = running.then(
    () => void (unwound = true),
    () => void (unwound = true),
  );
  try {
    const value = await withAbort(running, termination.signal);
    termination.request('completed');
    const decided = termination.reason as AbortReason;
    return decided.kind === 'completed' ? { reason: 'completed', value } : outcome(decided);
  } catch (error) {
    if (!termination.reason) {
      const kind = isAbortLike(error) ? kindOfAbort(error) : 'provider';
      termination.request(kind, messageOf(error));
    }
    if (!unwound) await drained(ended, options);
    const decided = termination.reason as AbortReason;
    if (decided.kind === 'provider' && error && typeof error === 'object' && 'code' in error) {
      return {
        reason: 'provider',
        error: { code: String((error as { code: unknown }).code), message: messageOf(error) ?? '' },
      };
    }
    return outcome(decided);
  }
}

/** Resolves once `ended` does (the body settled; its outcome is already decided) or `drainMs` passed. */
function drained(ended: Promise<void>, options: SettleOptions): Promise<void> {
  const timers = options.timers ?? realTimers;
  return new Promise<void>((resolve) => {
    const handle = timers.setTimeout(() => {
      reportDropped(
        'settleRun: the stopped run body did not unwind in time',
        new Error(`still running after ${options.drainMs ?? SETTLE_DRAIN_MS} ms`),
      );
      resolve();
    }, options.drainMs ?? SETTLE_DRAIN_MS);
    const done = (): void => {
      timers.clearTimeout(handle);
      resolve();
    };
    void ended.then(done);
  });
}

function outcome(r: AbortReason): Settled<never> {
  return { reason: r.kind, error: { code: r.code, message: r.message } };
}

function isAbortLike(error: unknown): boolean {
  if (error && typeof error === 'object') {
    if ('kind' in error) return true;
    if ((error as { name?: unknown }).name === 'AbortError') return true;
  }
  return false;
}

/**
 * Guards a session against concurrent runs: a run started while another is running settles
 * at once with `busy`, leaving the running one untouched.
 */
export function createRunGuard(): {
  run<T>(termination: Termination, body: (signal: AbortSignal) => Promise<T>): Promise<Settled<T>>;
  readonly running: boolean;
} {
  let running = false;
  return {
    async run(termination, body) {
      if (running) {
        termination.request('busy', 'a run is already in progress');
        return outcome(termination.reason as AbortReason);
      }
      running = true;
      try {
        return await settleRun(termination, body);
      } finally {
        running = false;
      }
    },
    get running() {
      return running;
    },
  };
}
