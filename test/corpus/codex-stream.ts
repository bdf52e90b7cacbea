/**
 * A long Codex `exec --json` stream, generated from a seed: turns of reasoning, agent messages,
 * command executions with output, and file changes, in the record shapes of the recorded Codex
 * streams. Used where a stream far longer than any recording is needed (the command-path
 * measurement of `minicode ingest`, the backpressure test). Same seed, same bytes.
 */
import { mulberry32 } from '../../lib/random.js';

const WORDS = [
  'the',
  'build',
  'passes',
  'after',
  'fixing',
  'imports',
  'in',
  'src/index.ts',
  'and',
  'tests',
  'cover',
  'parser',
  'edge',
  'cases',
  'with',
  'a',
  'small',
  'patch',
];

/** Options of {@link codexStreamLines}. */
export interface CodexStreamOptions {
  /** Records to produce (approximately: a turn is never cut). */
  records: number;
  /** Default 1. */
  seed?: number;
}

/** The stream's lines (without newlines), lazily. */
export function* codexStreamLines(options: CodexStreamOptions): Generator<string> {
  const random = mulberry32(options.seed ?? 1);
  const pick = (n: number): number => Math.floor(random() * n);
  const words = (n: number): string => Array.from({ length: n }, () => WORDS[pick(WORDS.length)]).join(' ');
  let produced = 0;
  let item = 0;
  yield JSON.stringify({ type: 'thread.started', thread_id: '019ab7c5-3c6c-7dd3-8e6e-cec2a5a49a62' });
  produced++;
  while (produced < options.records) {
    yield JSON.stringify({ type: 'turn.started' });
    produced++;
    const steps = 3 + pick(6);
    for (let s = 0; s < steps; s++) {
      const id = `item_${item++}`;
      switch (pick(4)) {
        case 0:
          yield JSON.stringify({
            type: 'item.completed',
            item: { id, type: 'reasoning', text: `**${words(3)}**\n\n${words(40 + pick(60))}` },
          });
          produced++;
          break;
        case 1:
          yield JSON.stringify({
            type: 'item.completed',
            item: { id, type: 'agent_message', text: words(20 + pick(80)) },
          });
          produced++;
          break;
        case 2: {
          const command = `/bin/bash -lc 'npm test -- ${words(2)}'`;
          yield JSON.stringify({
            type: 'item.started',
            item: {
              id,
              type: 'command_execution',
              command,
              aggregated_output: '',
              exit_code: null,
              status: 'in_progress',
            },
          });
          const output = Array.from({ length: 5 + pick(30) }, () => words(8)).join('\n');
          yield JSON.stringify({
            type: 'item.completed',
            item: {
              id,
              type: 'command_execution',
              command,
              aggregated_output: output,
              exit_code: pick(5) === 0 ? 1 : 0,
              status: 'completed',
            },
          });
          produced += 2;
          break;
        }
        default: {
          const changes = [
            { path: `/work/repo/src/${words(1).replace(/\W/g, '')}-${item}.ts`, kind: pick(2) ? 'update' : 'add' },
          ];
          yield JSON.stringify({
            type: 'item.started',
            item: { id, type: 'file_change', changes, status: 'in_progress' },
          });
          yield JSON.stringify({
            type: 'item.completed',
            item: { id, type: 'file_change', changes, status: 'completed' },
          });
          produced += 2;
        }
      }
    }
    yield JSON.stringify({
      type: 'turn.completed',
      usage: { input_tokens: 4000 + pick(40000), cached_input_tokens: pick(20000), output_tokens: 100 + pick(900) },
    });
    produced++;
  }
}

/** Write the stream to a file (one record per line); returns its size in bytes. */
export async function writeCodexStream(file: string, options: CodexStreamOptions): Promise<number> {
  const fs = await import('node:fs');
  const out = fs.createWriteStream(file);
  let bytes = 0;
  for (const line of codexStreamLines(options)) {
    bytes += Buffer.byteLength(line) + 1;
    if (!out.write(`${line}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return bytes;
}
