/**
 * Batch progress for three audiences: a person at a terminal (one bar redrawn in place on
 * stderr), a log (plain lines on stderr every few seconds), a program (`--json`: JSON lines on
 * stdout, one per finished run, periodic progress, one summary last). Rendering is throttled
 * and string building is a few small joins per redraw, so thousands of runs per minute cost
 * the event loop nothing measurable.
 */
import { formatDuration } from '../render/duration.js';
import { jsonLine } from '../render/json-line.js';
import { eraseRows, rowsFor } from '../render/width.js';
import { costText } from './tally.js';
import type { BatchRecord } from './records.js';
import { definedOnly } from '../defined-only.js';

/** What the display shows. */
export interface ProgressSnapshot {
  /** Valid ids in the input. */
  total: number;
  completed: number;
  failed: number;
  running: number;
  /** Finished by this invocation (for the rate). */
  finishedNow: number;
  elapsedMs: number;
  tokens: number;
  costUsd: number;
  /** Finished runs whose cost is known / unknown (an unknown cost is never shown as $0). */
  costKnown: number;
  costUnknown: number;
  concurrency: number;
  maxConcurrency: number;
  paused: boolean;
}

/** A progress display. */
export interface ProgressReporter {
  /** A run finished (json mode prints a record line). */
  record(record: BatchRecord): void;
  /** New numbers; redraws when the throttle allows. */
  update(snapshot: ProgressSnapshot): void;
  /** Last redraw, then the summary (json) or a newline (tty). */
  finish(snapshot: ProgressSnapshot, summary: unknown): void;
}

/** Options of {@link createProgress}. */
export interface ProgressOptions {
  mode: 'tty' | 'plain' | 'json' | 'none';
  write: (s: string) => void;
  /** Where json lines go (stdout). */
  writeOut?: ((s: string) => void) | undefined;
  /** Least time between redraws: default 100 ms on a TTY, 2000 ms for plain lines, 1000 ms for json. */
  intervalMs?: number | undefined;
  clock?: (() => number) | undefined;
  /** Terminal width for the bar, asked on every redraw (a window can narrow mid-run); default 80. */
  columns?: (() => number | undefined) | undefined;
}

/** Runs per second and ETA. */
export function rateAndEta(s: ProgressSnapshot): { rate: number; etaMs: number | undefined } {
  const rate = s.elapsedMs > 0 ? (s.finishedNow * 1000) / s.elapsedMs : 0;
  const left = s.total - s.completed - s.failed;
  return { rate, etaMs: rate > 0 ? (left / rate) * 1000 : left === 0 ? 0 : undefined };
}

function compact(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e4 ? `${(n / 1e3).toFixed(1)}k` : String(n);
}

/** The plain one-line description (also the tail of the TTY bar). */
export function progressLine(s: ProgressSnapshot): string {
  const { rate, etaMs } = rateAndEta(s);
  return [
    `${s.completed + s.failed}/${s.total} done`,
    `${s.failed} failed`,
    `${s.running} running`,
    `${rate.toFixed(1)} runs/s`,
    `ETA ${etaMs === undefined ? '?' : formatDuration(etaMs)}`,
    `${compact(s.tokens)} tokens`,
    costText(s.costUsd, s.costKnown, s.costUnknown),
    `concurrency ${s.concurrency}/${s.maxConcurrency}${s.paused ? ' (backing off)' : ''}`,
  ].join(', ');
}

function bar(s: ProgressSnapshot, width: number): string {
  const done = s.total === 0 ? 1 : (s.completed + s.failed) / s.total;
  const filled = Math.round(done * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

/** Create a reporter. */
export function createProgress(options: ProgressOptions): ProgressReporter {
  const clock = options.clock ?? Date.now;
  const interval = options.intervalMs ?? (options.mode === 'tty' ? 100 : options.mode === 'plain' ? 2000 : 1000);
  const out = options.writeOut ?? options.write;
  let last = -Infinity;
  /** The bar as last drawn: after the window narrows, the terminal has re-wrapped it onto more rows. */
  let drawn = '';
  const draw = (s: ProgressSnapshot): void => {
    switch (options.mode) {
      case 'tty': {
        const line = `${bar(s, 20)} ${progressLine(s)}`;
        const columns = Math.max(10, options.columns?.() ?? 80);
        // Erase every row the previous bar takes at the CURRENT width, then one line cut to the
        // width less one column (no wrap, the cursor never in the pending-wrap column).
        const erase = drawn === '' ? '\r\x1b[2K' : eraseRows(rowsFor(drawn, columns));
        drawn = line.length > columns - 1 ? line.slice(0, columns - 1) : line;
        options.write(`${erase}${drawn}`);
        break;
      }
      case 'plain':
        options.write(`batch: ${progressLine(s)}\n`);
        break;
      case 'json': {
        const { rate, etaMs } = rateAndEta(s);
        out(
          `${JSON.stringify(definedOnly({ type: 'batch.progress', ...s, runsPerSecond: Number(rate.toFixed(3)), etaMs: etaMs !== undefined ? Math.round(etaMs) : undefined }))}\n`,
        );
        break;
      }
      case 'none':
        break;
    }
  };
  return {
    record(record) {
      if (options.mode !== 'json') return;
      out(
        `${jsonLine(definedOnly({ type: 'batch.record', id: record.id, attempt: record.attempt, kind: record.kind, outcome: record.outcome, reason: record.reason, passed: record.passed, sessionId: record.sessionId || undefined }))}\n`,
      );
    },
    update(snapshot) {
      const now = clock();
      if (now - last < interval) return;
      last = now;
      draw(snapshot);
    },
    finish(snapshot, summary) {
      draw(snapshot);
      if (options.mode === 'tty') options.write('\n');
      if (options.mode === 'json') out(`${JSON.stringify({ type: 'batch.summary', ...(summary as object) })}\n`);
    },
  };
}
