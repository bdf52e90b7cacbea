// Render a hand-made event stream with the TTY renderer in a real terminal (used by
// test/render/tty-terminal.test.ts under tmux; also handy by hand):
//   npx tsc -p . && node test/helpers/render-demo.mjs test/streams/events/tool-run.jsonl [pauseMs]
// Events are reduced and rendered one by one with a short pause between them, so the live
// region (spinner, elapsed time, streaming text) is drawn and erased for real. With
// DEMO_WAIT_RESIZE_AFTER=TYPE set, the demo stops after the first event of that type until the
// terminal is resized, so a test can change the width while the live region is on screen.
import fs from 'node:fs';
import { initialState, reduce } from '../../dist/lib/reducer/index.js';
import { createRenderer } from '../../dist/lib/render/index.js';

const [file, pauseArg] = process.argv.slice(2);
const pause = Number(pauseArg ?? 20);
const events = fs
  .readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l));
const renderer = createRenderer('tty', {
  out: (chunk) => process.stdout.write(chunk),
  stream: process.stdout,
  showReasoning: process.env.DEMO_SHOW_REASONING === '1',
});
let state = initialState(events[0]?.sessionId ?? 'empty');
let waitResizeAfter = process.env.DEMO_WAIT_RESIZE_AFTER;
for (const event of events) {
  state = reduce(state, event);
  renderer.onEvent(event, state);
  if (event.type === waitResizeAfter) {
    waitResizeAfter = undefined;
    // A signal listener alone does not keep node running: hold the loop open while waiting.
    const keepAlive = setInterval(() => undefined, 1000);
    await new Promise((r) => process.stdout.once('resize', r));
    clearInterval(keepAlive);
  }
  await new Promise((r) => setTimeout(r, pause));
}
renderer.finish(state, process.env.DEMO_VERIFY ? { verify: { ok: true, command: process.env.DEMO_VERIFY } } : {});
