/**
 * Property: random byte mutations (overwrite, delete, insert, cut) of fixture bytes never make
 * a decoder throw, and every decode ends in exactly one terminal outcome per response (the
 * last non-diagnostic event is `model.response.completed`), with every payload valid.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PROVIDER_FORMATS } from '../../lib/decode/formats.js';
import { payloadSchemas } from '../../lib/events/index.js';
import { FIXTURES, HAVE_FIXTURES, ROOT } from '../helpers/cli.js';
import { loadHandMadeCorpus, loadProviderCorpus } from './corpus.js';
import { randomSplits } from '../helpers/splits.js';
import { decode } from './summary.js';

const corpus = [
  ...loadHandMadeCorpus(path.join(ROOT, 'test/streams')),
  ...(HAVE_FIXTURES ? loadProviderCorpus(FIXTURES) : []),
].filter((s) => s.bytes.length < 40_000);

const mutation = fc.oneof(
  fc.record({ op: fc.constant('set' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 40 }) }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.constantFrom(
      '\n',
      '\r',
      '\n\n',
      'data: {',
      '"}',
      'event: error\n',
      ':',
      '\xff',
      '{"error":"x"}\n',
      'data: [DONE]\n\n',
    ),
  }),
  fc.record({ op: fc.constant('cut' as const), at: fc.nat() }),
);

function mutate(
  bytes: Uint8Array,
  ms: { op: string; at: number; byte?: number; len?: number; text?: string }[],
): Uint8Array {
  let b = Buffer.from(bytes);
  for (const m of ms) {
    const at = b.length === 0 ? 0 : m.at % (b.length + 1);
    if (m.op === 'set' && at < b.length) b[at] = m.byte!;
    else if (m.op === 'delete') b = Buffer.concat([b.subarray(0, at), b.subarray(at + m.len!)]);
    else if (m.op === 'insert') b = Buffer.concat([b.subarray(0, at), Buffer.from(m.text!, 'latin1')]);
    else if (m.op === 'cut') b = b.subarray(0, at);
  }
  return new Uint8Array(b);
}

describe('decoders under random byte mutations', () => {
  it('never throw and always end in exactly one terminal outcome per response, with valid payloads', () => {
    fc.assert(
      fc.property(
        fc.nat(corpus.length - 1),
        fc.array(mutation, { minLength: 1, maxLength: 6 }),
        fc.nat(1000),
        (i, ms, seed) => {
          const stream = corpus[i]!;
          const bytes = mutate(stream.bytes, ms);
          const events = decode(stream.format, randomSplits(bytes, seed, 97));
          const started = events.filter((e) => e.type === 'model.response.started').length;
          const completed = events.filter((e) => e.type === 'model.response.completed');
          expect(completed.length).toBeGreaterThanOrEqual(1);
          expect(completed.length).toBe(started);
          const last = events.filter((e) => e.type !== 'diagnostic.raised').at(-1);
          expect(last?.type).toBe('model.response.completed');
          for (const c of completed)
            expect(['completed', 'truncated', 'error']).toContain(
              c.type === 'model.response.completed' ? c.payload.outcome : '',
            );
          for (const e of events) expect(payloadSchemas[e.type].safeParse(e.payload).success).toBe(true);
        },
      ),
      { numRuns: 300, seed: 20261130 },
    );
  });

  it('report an empty input as a truncated response', () => {
    for (const format of PROVIDER_FORMATS) {
      const events = decode(format, []);
      expect(events.at(-1)).toMatchObject({ type: 'model.response.completed', payload: { outcome: 'truncated' } });
    }
  });
});
