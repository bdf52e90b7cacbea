import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSseFramer, type SseEvent } from '../../lib/framing/sse.js';
import { FIXTURES, HAVE_FIXTURES, fixtureSkipNote } from '../helpers/cli.js';
import { splitAt } from '../helpers/splits.js';

interface Vector {
  name: string;
  chunks_b64?: string[];
  generate?: { prefix: string; repeat_char: string; count: number; suffix: string; chunk_size_bytes: number };
  expected_events: { event: string | null; data: string; lastEventId: string }[];
  expected_retry: number | null;
}

function frame(chunks: (Uint8Array | string)[]) {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const comments: string[] = [];
  const framer = createSseFramer({
    onEvent: (e) => events.push(e),
    onRetry: (r) => retries.push(r),
    onComment: (c) => comments.push(c),
  });
  for (const c of chunks) framer.feed(c);
  const end = framer.end();
  return { events, retries, comments, end };
}

function chunksOf(v: Vector): Uint8Array[] {
  if (v.chunks_b64) return v.chunks_b64.map((b) => new Uint8Array(Buffer.from(b, 'base64')));
  const g = v.generate!;
  const bytes = Buffer.from(g.prefix + g.repeat_char.repeat(g.count) + g.suffix, 'utf8');
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += g.chunk_size_bytes) out.push(bytes.subarray(i, i + g.chunk_size_bytes));
  return out;
}

function expectedData(v: Vector, data: string): string {
  const m = /^<"(.)" x (\d+)>$/.exec(data);
  return m ? m[1]!.repeat(Number(m[2])) : data;
}

const VECTORS = path.join(FIXTURES, 'providers/sse-spec/vectors.json');
fixtureSkipNote();

describe.skipIf(!HAVE_FIXTURES)('the SSE framer on the 48 WHATWG conformance vectors', () => {
  const cases: Vector[] = HAVE_FIXTURES
    ? (JSON.parse(fs.readFileSync(VECTORS, 'utf8')) as { cases: Vector[] }).cases
    : [];

  it('has all 48 vectors to run', () => {
    expect(cases).toHaveLength(48);
  });

  for (const v of cases) {
    it(`passes vector ${v.name}`, () => {
      const { events, retries } = frame(chunksOf(v));
      expect(events.map((e) => ({ event: e.event ?? null, data: e.data, lastEventId: e.lastEventId }))).toEqual(
        v.expected_events.map((e) => ({ ...e, data: expectedData(v, e.data) })),
      );
      expect(retries.at(-1) ?? null).toBe(v.expected_retry);
    });
  }
});

describe('the SSE framer', () => {
  it('reports a final event without its blank line as truncated and does not dispatch it', () => {
    const { events, end } = frame(['data: a\n\ndata: b']);
    expect(events.map((e) => e.data)).toEqual(['a']);
    expect(end.truncated).toBe(true);
    expect(end.pending?.data).toBe('b');
  });

  it('does not report a cleanly ended stream as truncated', () => {
    expect(frame(['data: a\n\n: keep-alive\n']).end).toEqual({ truncated: false, pending: undefined });
  });

  it('joins multi-line data with LF and keeps the event name', () => {
    const { events } = frame(['event: x\ndata: 1\ndata:2\r\n\r\n']);
    expect(events).toEqual([{ event: 'x', data: '1\n2', lastEventId: '', offset: 0 }]);
  });

  it('passes comments to onComment', () => {
    expect(frame([': OPENROUTER PROCESSING\n\ndata: 1\n\n']).comments).toEqual([' OPENROUTER PROCESSING']);
  });

  it('drops an event larger than maxEventBytes, reports it and goes on with the next one', () => {
    const overflows: number[] = [];
    const events: string[] = [];
    const framer = createSseFramer({
      onEvent: (e) => events.push(e.data),
      onOverflow: (_o, n) => overflows.push(n),
      maxEventBytes: 100,
    });
    framer.feed('data: ' + 'x'.repeat(60));
    framer.feed('y'.repeat(60) + '\ndata: more\n\ndata: ok\n\n');
    framer.end();
    expect(overflows).toHaveLength(1);
    expect(events).toEqual(['ok']);
  });

  it('gives the same events at any split of mixed line endings, BOM and multi-byte text', () => {
    const text = '\ufeffevent: a\r\ndata: é漢🙂\r\n\r\nid: 7\rdata: x\r\rdata: y\ndata: z\n\n: c\n\ndata: last\r\n\r\n';
    const bytes = new TextEncoder().encode(text);
    const whole = frame([bytes]).events;
    expect(whole.map((e) => e.data)).toEqual(['é漢🙂', 'x', 'y\nz', 'last']);
    fc.assert(
      fc.property(fc.array(fc.nat(bytes.length), { maxLength: 16 }), (cuts) => {
        // Cuts are 0..length, so splitAt's modulo leaves them as they are.
        expect(frame(splitAt(bytes, cuts)).events.map((e) => [e.event, e.data, e.lastEventId])).toEqual(
          whole.map((e) => [e.event, e.data, e.lastEventId]),
        );
      }),
    );
  });
});
