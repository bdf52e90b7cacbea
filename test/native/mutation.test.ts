import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import type { NativeFormat } from '../../lib/decode/formats.js';
import { NATIVE_AGENT_DECODERS } from '../../lib/native/index.js';
import type { EventDraft } from '../../lib/events/index.js';
import { ROOT } from '../helpers/cli.js';
import { splitAt } from '../helpers/splits.js';
import { violations } from './invariants.js';

// Hand-made streams (test/streams/native) as the seeds of mutation: a bare clone runs these.
const SEEDS: [NativeFormat, string][] = [
  ['codex', 'codex-all-items.jsonl'],
  ['codex', 'codex-interrupted.jsonl'],
  ['claude-code', 'claude-denied-subagent.jsonl'],
  ['claude-code', 'claude-max-turns.jsonl'],
  ['gemini-cli', 'gemini-quota.jsonl'],
  ['opencode', 'opencode-errors.jsonl'],
  ['opencode', 'opencode-done.jsonl'],
  ['terminal', 'terminal-quota.txt'],
];
const seedText = (file: string) => fs.readFileSync(path.join(ROOT, 'test/streams/native', file), 'utf8');

/** Mutations that mimic format drift and transport damage. */
const mutation = fc.oneof(
  // drop a slice (torn record, lost chunk)
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 80 }) }),
  // insert junk (stderr mixed into stdout, a debug line, random bytes)
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom(
        '\n[SandboxDebug] x\n',
        '\n{"type":"zzz"}\n',
        '\n{"type":"item.completed","item":{}}\n',
        '\nnull\n',
        '\n[1,2]\n',
        '"}',
        '{"',
        '\n{"type":"result"}\n',
        '\u0000\uffff',
      ),
    ),
  }),
  // rename a field or type (drift)
  fc.record({
    kind: fc.constant('rename' as const),
    from: fc.constantFrom('"type"', '"id"', '"tool_use_id"', '"item"', '"status"', '"part"', '"message"', '"content"'),
    to: fc.constantFrom('"kind"', '"x"', '"type"', '"id"'),
  }),
  // swap two lines (reordering)
  fc.record({ kind: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }),
  // replace a value with one of another JSON type
  fc.record({
    kind: fc.constant('retype' as const),
    from: fc.constantFrom('"completed"', 'true', 'false', '0', '"assistant"', '"success"', 'null'),
    to: fc.constantFrom('{}', '[]', '-1', '1.5', '"?"', 'null', '1e999'),
  }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function mutate(text: string, m: Mutation): string {
  switch (m.kind) {
    case 'drop': {
      const at = m.at % (text.length + 1);
      return text.slice(0, at) + text.slice(at + m.length);
    }
    case 'insert': {
      const at = m.at % (text.length + 1);
      return text.slice(0, at) + m.text + text.slice(at);
    }
    case 'rename':
      return text.replace(m.from, m.to);
    case 'swap': {
      const lines = text.split('\n');
      const a = m.a % lines.length;
      const b = m.b % lines.length;
      [lines[a], lines[b]] = [lines[b] as string, lines[a] as string];
      return lines.join('\n');
    }
    case 'retype':
      return text.replace(m.from, m.to);
  }
}

function decode(
  format: NativeFormat,
  bytes: Uint8Array,
  cuts: number[],
  exit: [number | null, string | null] | undefined,
): EventDraft[] {
  const events: EventDraft[] = [];
  const decoder = NATIVE_AGENT_DECODERS[format]({ onEvent: (e) => events.push(e) });
  for (const chunk of splitAt(bytes, cuts)) decoder.feed(chunk);
  decoder.stderr('some stderr noise\n');
  decoder.end();
  if (exit) decoder.exit(...exit);
  return events;
}

describe('native decoders under mutated input', () => {
  it.each(SEEDS)(
    '%s %s: never throw, keep the state machines and report bad records as diagnostics',
    (format, file) => {
      const text = seedText(file);
      fc.assert(
        fc.property(
          fc.array(mutation, { minLength: 1, maxLength: 4 }),
          fc.array(fc.nat(), { maxLength: 8 }),
          fc.constantFrom<[number | null, string | null] | undefined>(
            [0, null],
            [1, null],
            [null, 'SIGKILL'],
            undefined,
          ),
          (mutations, cuts, exit) => {
            const mutated = mutations.reduce(mutate, text);
            const events = decode(format, new TextEncoder().encode(mutated), cuts, exit);
            expect(violations(events)).toEqual([]);
            // A non-zero exit or a signal always settles the run (when nothing else did before).
            if (exit && (exit[0] !== 0 || exit[1] !== null)) {
              expect(
                events.some(
                  (e) => e.type === 'task.completed' || e.type === 'task.failed' || e.type === 'task.cancelled',
                ),
              ).toBe(true);
            }
          },
        ),
        { numRuns: 150, seed: 20261130 },
      );
    },
  );

  it('turns a junk line into one bad-JSON diagnostic with its line number and an excerpt', () => {
    const text = seedText('codex-all-items.jsonl').replace('\n', '\n{"type":"turn.started"\n');
    const events = decode('codex', new TextEncoder().encode(text), [], [0, null]);
    const diagnostics = events.filter((e) => e.type === 'diagnostic.raised');
    expect(diagnostics.map((d) => d.payload)).toContainEqual({
      code: 'MINICODE_E_NATIVE_BAD_JSON',
      message: 'line is not valid JSON; skipped',
      line: 2,
      excerpt: '{"type":"turn.started"',
    });
    expect(events.at(-1)?.type).toBe('task.completed');
  });

  it('bounds the diagnostics a flood of unknown records produces', () => {
    const flood = Array.from({ length: 500 }, (_, i) => `{"type":"unknown.${i}"}`).join('\n');
    const events = decode('codex', new TextEncoder().encode(flood), [], undefined);
    expect(events.filter((e) => e.type === 'diagnostic.raised').length).toBe(20);
  });

  it('reports an over-long line without keeping it', () => {
    const events: EventDraft[] = [];
    const decoder = NATIVE_AGENT_DECODERS.codex({ onEvent: (e) => events.push(e), maxFrameBytes: 100 });
    decoder.feed(`{"type":"turn.started"}\n{"type":"error","message":"${'x'.repeat(500)}"}\n`);
    decoder.end();
    expect(events.map((e) => (e.type === 'diagnostic.raised' ? e.payload.code : e.type))).toEqual([
      'task.started',
      'MINICODE_E_NATIVE_LINE_TOO_LONG',
    ]);
  });
});
