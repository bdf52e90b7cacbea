import fs from 'node:fs';
import path from 'node:path';
import { OutputEventSchema, type OutputEvent } from '../../lib/events/index.js';
import { initialState, reduce, type ReducerState } from '../../lib/reducer/index.js';
import type { FinishExtra, Renderer } from '../../lib/render/types.js';
import { ROOT } from '../helpers/cli.js';

/** The hand-made streams in test/streams/events/. */
export const STREAMS = ['tool-run', 'approval', 'truncated', 'failed-run'] as const;

/** Read and validate one hand-made stream. */
export function loadEvents(name: string): OutputEvent[] {
  const text = fs.readFileSync(path.join(ROOT, 'test/streams/events', `${name}.jsonl`), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => OutputEventSchema.parse(JSON.parse(l)) as OutputEvent);
}

/** Reduce each event and hand it to the renderer, then finish; returns the final state. */
export function drive(renderer: Renderer<ReducerState>, events: OutputEvent[], extra?: FinishExtra): ReducerState {
  let state = initialState(events[0]?.sessionId ?? 'empty');
  for (const event of events) {
    state = reduce(state, event);
    renderer.onEvent(event, state);
  }
  renderer.finish(state, extra);
  return state;
}

/** A writer that collects chunks. */
export function collector(): { write: (chunk: string) => void; text: () => string } {
  const chunks: string[] = [];
  return { write: (c) => void chunks.push(c), text: () => chunks.join('') };
}
