/**
 * The JSONL lines of a batch of envelopes from a few serialisations of runs of the batch, each
 * cut into lines.
 *
 * Why runs: `JSON.stringify` builds its result in growing pieces and joins them, so a call per
 * event allocated about three times the text it produced; one call for many events allocates
 * its text about once. But a call for a whole input chunk's batch (hundreds of envelopes, half a
 * megabyte of text) makes a string V8 keeps in its large-object space: a fresh memory mapping
 * per string, page-faulted in and flattened on first read, which cost more than the call saved
 * (heap and CPU profiles of `ingest --json`). So a run holds about {@link RUN_CHARS} characters
 * of JSON, sized from what the previous runs of the same batch averaged per event.
 *
 * Why the cut is exact: when every event's first field is `schema` (as the enveloper builds
 * them; checked), each element of `[e1,e2,...]` after the first starts right after
 * `},{"schema":"<name>",`, so every boundary is a cut. That text cannot occur inside a JSON
 * string (a `"` there is always escaped), only in a payload object that has such a `schema`
 * field itself; any such occurrence adds a cut, the count of cuts no longer matches the count
 * of events, and the lines of that run are then made one by one.
 * The escaping of `jsonLine` is per character inside strings, so escaping a run and then
 * cutting it gives the same text as escaping each line.
 */
import { SCHEMA_NAME } from '../events/schema-name.js';
import type { OutputEvent } from '../events/index.js';
import { jsonLine } from './json-line.js';

/** What every serialised envelope starts with. */
const HEAD = `{"schema":${JSON.stringify(SCHEMA_NAME)},`;
/** The text between two serialised envelopes in a serialised array, from the `}` that ends the first. */
const CUT = `}${','}${HEAD}`;

/**
 * Characters of JSON one serialisation aims at: a quarter of V8's large-object threshold
 * (128 KiB) leaves room for a two-byte string and for an event far longer than the average.
 */
export const RUN_CHARS = 32 * 1024;
/** Events in the first run of a batch, before any size is known. */
const FIRST_RUN = 16;

/** `events.map(jsonLine)`, from one serialisation per run of events where it can be cut exactly. */
export function batchLines(events: readonly OutputEvent[]): string[] {
  const lines = new Array<string>(events.length);
  let run = FIRST_RUN;
  let chars = 0;
  for (let from = 0; from < events.length; ) {
    const to = Math.min(events.length, from + run);
    chars += linesOfRun(events, from, to, lines);
    from = to;
    // The next run's size from the average so far; long events go one per call (a call then
    // costs little beside its text).
    run = Math.max(1, Math.floor(RUN_CHARS / Math.max(1, chars / to)));
  }
  return lines;
}

/** Fill `lines[from, to)`; returns the characters written. */
function linesOfRun(events: readonly OutputEvent[], from: number, to: number, lines: string[]): number {
  if (to - from < 2 || !schemaFirstFrom(events, from, to)) return oneByOne(events, from, to, lines);
  const json = jsonLine(from === 0 && to === events.length ? events : events.slice(from, to));
  if (!json.startsWith(HEAD, 1)) return oneByOne(events, from, to, lines);
  let start = 1;
  let k = from;
  for (let at = json.indexOf(CUT, start); at !== -1; at = json.indexOf(CUT, at + 2)) {
    // More cuts than boundaries: some payload holds the cut text; make the lines one by one.
    if (k === to - 1) return oneByOne(events, from, to, lines);
    lines[k++] = json.slice(start, at + 1);
    start = at + 2;
  }
  if (k !== to - 1) return oneByOne(events, from, to, lines);
  lines[k] = json.slice(start, json.length - 1);
  return json.length;
}

function oneByOne(events: readonly OutputEvent[], from: number, to: number, lines: string[]): number {
  let chars = 0;
  for (let i = from; i < to; i++) {
    const line = jsonLine(events[i]);
    lines[i] = line;
    chars += line.length;
  }
  return chars;
}

function schemaFirstFrom(events: readonly OutputEvent[], from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!schemaFirst(events[i] as OutputEvent)) return false;
  return true;
}

/** Whether the first field JSON.stringify writes for `event` is `"schema":"<name>"`. */
function schemaFirst(event: OutputEvent): boolean {
  // for-in visits own keys first, in the order JSON.stringify writes them.
  for (const key in event) return key === 'schema' && event.schema === SCHEMA_NAME;
  return false;
}
