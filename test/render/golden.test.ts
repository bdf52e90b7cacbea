import { beforeAll, describe, expect, it } from 'vitest';
import { loadMarkdown } from '../../lib/render/markdown/index.js';
import { createJsonlRenderer } from '../../lib/render/jsonl.js';
import { createLinearRenderer } from '../../lib/render/linear.js';
import { viewOf } from '../../lib/render/state-view.js';
import { createTtyRenderer } from '../../lib/render/tty.js';
import type { ReducerState } from '../../lib/reducer/index.js';
import type { Renderer } from '../../lib/render/types.js';
import { STREAMS, collector, drive, loadEvents } from './drive.js';
import { fakeTerminal, manualTimer, visibleEscapes } from './tty-fake.js';

// The TTY renders Markdown once the tokenizer is loaded: load it first, so every run renders alike.
beforeAll(() => loadMarkdown());

// Golden output of every renderer over the hand-made streams in test/streams/events/.
// Regenerate after an intended change with `npx vitest run test/render/golden.test.ts -u`.

type Make = (out: (chunk: string) => void) => Renderer<ReducerState>;

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);

const RENDERERS: Record<string, Make> = {
  linear: (out) => createLinearRenderer({ out, viewOf }),
  'linear-verbose': (out) => createLinearRenderer({ out, viewOf, verbosity: 'verbose' }),
  'linear-debug': (out) => createLinearRenderer({ out, viewOf, verbosity: 'debug' }),
  jsonl: (out) => createJsonlRenderer({ out, viewOf }),
  // A 60-column TTY (NO_COLOR, then colour), with a fixed clock: the escape sequences are the redraws.
  tty: (out) =>
    createTtyRenderer({
      out,
      viewOf,
      stream: fakeTerminal(60),
      env: { NO_COLOR: '1' },
      clock: () => T0 + 5000,
      timer: manualTimer(),
    }),
  'tty-color': (out) =>
    createTtyRenderer({
      out,
      viewOf,
      stream: fakeTerminal(60),
      env: { TERM: 'xterm' },
      clock: () => T0 + 5000,
      timer: manualTimer(),
    }),
};

function render(stream: string, make: Make): string {
  const c = collector();
  drive(make(c.write), loadEvents(stream));
  return c.text();
}

describe.each(STREAMS)('the %s stream', (stream) => {
  it.each(Object.keys(RENDERERS))('renders with %s as its golden file, the same on every run', async (name) => {
    const make = RENDERERS[name]!;
    const first = render(stream, make);
    expect(render(stream, make)).toBe(first);
    await expect(visibleEscapes(first)).toMatchFileSnapshot(`golden/${stream}.${name}.txt`);
  });
});
