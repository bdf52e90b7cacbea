import type { IntervalTimer, TerminalStream } from '../../lib/render/tty.js';

/** A terminal stream stand-in: a width that can change and a `resize` listener list. */
export function fakeTerminal(
  columns: number,
  isTTY = true,
): TerminalStream & { columns: number; resize(to: number): void } {
  const listeners: (() => void)[] = [];
  return {
    isTTY,
    columns,
    on(_event, listener) {
      listeners.push(listener);
    },
    off(_event, listener) {
      const i = listeners.indexOf(listener);
      if (i >= 0) listeners.splice(i, 1);
    },
    resize(to) {
      this.columns = to;
      for (const l of [...listeners]) l();
    },
  };
}

/** A timer that fires only when the test says so. */
export function manualTimer(): IntervalTimer & { tick(): void; active(): number } {
  const callbacks = new Map<number, () => void>();
  let next = 1;
  return {
    setInterval(callback) {
      callbacks.set(next, callback);
      return next++;
    },
    clearInterval(handle) {
      callbacks.delete(handle as number);
    },
    tick() {
      for (const cb of [...callbacks.values()]) cb();
    },
    active() {
      return callbacks.size;
    },
  };
}

/** Make escape sequences visible in golden files: ESC becomes `␛`. */
export function visibleEscapes(text: string): string {
  return text.replace(/\u001b/g, '␛');
}

/** Remove every CSI / OSC sequence (what a person never sees as text). */
export function stripEscapes(text: string): string {
  return text.replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, '').replace(/\u001b\][^\u0007]*\u0007/g, '');
}
