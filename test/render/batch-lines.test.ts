import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEnveloper, type EventDraft, type OutputEvent } from '../../lib/events/index.js';
import { batchLines } from '../../lib/render/batch-lines.js';
import { jsonLine } from '../../lib/render/json-line.js';
import { createJsonlRenderer } from '../../lib/render/jsonl.js';
import { viewOf } from '../../lib/render/state-view.js';
import { STREAMS, loadEvents } from './drive.js';

/** Strings a payload may carry that matter to the cut: the cut text itself, quotes, escapes, C1 controls, line separators. */
const tricky = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '},{"schema":"minicode.output.v1",',
    '"}',
    '\\',
    '\u009b[31m',
    '\u2028',
    '\u202e',
    '{"schema":"minicode.output.v1",',
    'é😀',
  ),
);

/** Payload values, including objects whose first field is `schema` (the one way the cut text occurs outside strings). */
const value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    tie('array'),
    tie('object'),
    tie('schemaObject'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 4 }),
  schemaObject: fc.record({ schema: fc.constant('minicode.output.v1'), rest: tie('value') }),
})).value;

function envelopes(payloads: unknown[]): OutputEvent[] {
  const enveloper = createEnveloper({ sessionId: 'ses_batch', clock: () => 1_700_000_000_000 });
  return payloads.map((payload) =>
    enveloper.wrap({
      type: 'tool.completed',
      payload: { toolCallId: 't', name: 'shell', summary: 'ok', receipt: payload },
    } as EventDraft),
  );
}

describe('the JSONL lines of a batch made from one serialisation', () => {
  it('equal the lines made one event at a time, whatever the payloads hold', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 12 }), (payloads) => {
        const events = envelopes(payloads);
        expect(batchLines(events)).toEqual(events.map(jsonLine));
      }),
      { numRuns: 400 },
    );
  });

  it('equal the lines made one event at a time in a batch long enough to be serialised in several runs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(value, fc.string({ minLength: 500, maxLength: 9000 })), { minLength: 20, maxLength: 120 }),
        (payloads) => {
          const events = envelopes(payloads);
          expect(batchLines(events)).toEqual(events.map(jsonLine));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('equal the lines made one event at a time when a payload holds the text between two envelopes', () => {
    const events = envelopes([
      'x',
      [{ schema: 'minicode.output.v1', eventId: 'ses_batch:2' }, { schema: 'minicode.output.v1' }],
      'y',
    ]);
    expect(batchLines(events)).toEqual(events.map(jsonLine));
  });

  it('equal the lines made one event at a time when an event does not start with its schema field', () => {
    const [a, b, c] = envelopes(['x', 'y', 'z']) as [OutputEvent, OutputEvent, OutputEvent];
    const { schema, ...rest } = b;
    const reordered = { ...rest, schema } as OutputEvent;
    expect(batchLines([a, reordered, c])).toEqual([a, reordered, c].map(jsonLine));
  });

  it.each(STREAMS)('for the %s stream are what the JSONL renderer makes event by event', (stream) => {
    const events = loadEvents(stream);
    const renderer = createJsonlRenderer({ out: () => {}, viewOf });
    expect(renderer.linesOf?.(events)).toEqual(events.map((e) => renderer.lineOf?.(e)));
  });
});
