/**
 * The pipeline's side of a command's stdout: renderers write synchronously, and the settle
 * stage waits on {@link OutputPort.ready} before it takes the next batch, so a slow reader slows
 * the producer (file read, provider body read, agent pipe) instead of growing a buffer.
 *
 * Writes are coalesced: the text of one batch of events goes out as one write (a write per
 * event was a tenth of `ingest --json`'s time), flushed when the pipeline asks whether it may go
 * on, when 64 KiB are pending, and at the end of the current job at the latest.
 *
 * The port writes through a guarded output (the CLI's stdout guard) that owns "the reader went
 * away": once it is closed, writes are no-ops and a drain resolves at once, so a run whose
 * reader left never hangs and goes on to its end (and flushes the store).
 */

/** What the port writes through: the CLI's guarded stdout, or any stream adapted the same way. */
export interface GuardedTarget {
  /** True once the reader is gone. */
  readonly closed: boolean;
  /** Write; false means: await `drain()` before more. */
  write(text: string): boolean;
  /** Resolves when drained, or at once when no drain is needed or the target is closed. */
  drain(): Promise<void>;
}

/** Where a renderer's text goes, with the drain signal the pipeline waits on. */
export interface OutputPort {
  /** Write text (coalesced); discarded once the target is closed. */
  write(text: string): void;
  /** Write out what is pending now. */
  flush(): void;
  /** Flush; then undefined when more may be written now, else a promise of the drain. */
  ready(): Promise<void> | undefined;
  /** True once the target is closed. */
  readonly closed: boolean;
}

/** Pending text flushed at once past this many characters. */
const MAX_PENDING_CHARS = 64 * 1024;

const ports = new WeakMap<GuardedTarget, OutputPort>();

/** The port of a target: one per target, so every writer of stdout shares its pending text and drain state. */
export function outputPortOf(target: GuardedTarget): OutputPort {
  let port = ports.get(target);
  if (!port) {
    port = createOutputPort(target);
    ports.set(target, port);
  }
  return port;
}

function createOutputPort(target: GuardedTarget): OutputPort {
  let pending: string[] = [];
  let pendingChars = 0;
  let scheduled = false;
  let full = false;
  const flush = (): void => {
    if (pending.length === 0) return;
    const text = pending.length === 1 ? (pending[0] as string) : pending.join('');
    pending = [];
    pendingChars = 0;
    if (!target.write(text)) full = true;
  };
  const flushLater = (): void => {
    scheduled = false;
    flush();
  };
  return {
    write(text) {
      if (target.closed) return;
      pending.push(text);
      pendingChars += text.length;
      if (pendingChars >= MAX_PENDING_CHARS) flush();
      else if (!scheduled) {
        scheduled = true;
        queueMicrotask(flushLater);
      }
    },
    flush,
    ready() {
      flush();
      if (!full || target.closed) return undefined;
      return target.drain().then(() => {
        full = false;
      });
    },
    get closed() {
      return target.closed;
    },
  };
}
