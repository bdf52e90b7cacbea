/**
 * Seeded generators of long recorded streams in the real wire formats, hand-made (no third-party
 * bytes): a `codex exec --json` JSONL stream of many turns and an Anthropic Messages SSE stream
 * of many responses in sequence. Used by the memory test (a 4x longer stream must not cost
 * 4x the memory) and by whoever needs a long input of a known shape. Same seed and size, same
 * bytes. Tool call ids are unique over the stream, file paths come from a bounded set (a
 * repository has so many files), and message text varies, so nothing deduplicates by accident.
 */
import { mulberry32 } from '../../lib/random.js';

/** Options of the generators. */
export interface LongStreamOptions {
  /** Number of turns (codex) or responses (anthropic). */
  turns: number;
  /** PRNG seed; default 17. */
  seed?: number;
}

const WORDS = [
  'the',
  'pager',
  'test',
  'module',
  'fails',
  'because',
  'offset',
  'is',
  'off',
  'by',
  'one',
  'fix',
  'index',
  'read',
  'file',
  'src',
  'check',
  'output',
  'build',
  'passes',
  'stream',
  'buffer',
  'line',
  'count',
];

function words(rand: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)] as string);
  return out.join(' ');
}

function outputLines(rand: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`${words(rand, 3 + Math.floor(rand() * 8))} ${Math.floor(rand() * 1e6)}`);
  return out.join('\n') + '\n';
}

const PATHS = Array.from({ length: 40 }, (_, i) => `src/module-${i}.ts`);

/**
 * A `codex exec --json` stream: `thread.started`, then per turn `turn.started`, a reasoning
 * item, one to four shell commands (started + completed, with output), sometimes a file change
 * or an MCP call, an agent message, and `turn.completed` with cumulative usage: about 10 records
 * and 4 KB per turn. Yields one JSONL line (with its newline) at a time.
 */
export function* codexJsonl(options: LongStreamOptions): Generator<string> {
  const rand = mulberry32(options.seed ?? 17);
  let item = 0;
  let input = 0;
  let output = 0;
  const line = (record: unknown): string => `${JSON.stringify(record)}\n`;
  yield line({ type: 'thread.started', thread_id: '0199f000-0000-7000-8000-000000001017' });
  for (let turn = 0; turn < options.turns; turn++) {
    yield line({ type: 'turn.started' });
    yield line({
      type: 'item.completed',
      item: {
        id: `item_${item++}`,
        type: 'reasoning',
        text: `**Planning** ${words(rand, 10 + Math.floor(rand() * 30))}`,
      },
    });
    const commands = 1 + Math.floor(rand() * 4);
    for (let c = 0; c < commands; c++) {
      const id = `item_${item++}`;
      const command = `/bin/bash -lc 'npm test -- ${PATHS[Math.floor(rand() * PATHS.length)]}'`;
      yield line({
        type: 'item.started',
        item: { id, type: 'command_execution', command, aggregated_output: '', exit_code: null, status: 'in_progress' },
      });
      const exitCode = rand() < 0.1 ? 1 : 0;
      yield line({
        type: 'item.completed',
        item: {
          id,
          type: 'command_execution',
          command,
          aggregated_output: outputLines(rand, 4 + Math.floor(rand() * 36)),
          exit_code: exitCode,
          status: exitCode === 0 ? 'completed' : 'failed',
        },
      });
    }
    if (rand() < 0.3) {
      const id = `item_${item++}`;
      const changes = [{ path: PATHS[Math.floor(rand() * PATHS.length)], kind: 'update' }];
      yield line({ type: 'item.started', item: { id, type: 'file_change', changes, status: 'in_progress' } });
      yield line({ type: 'item.completed', item: { id, type: 'file_change', changes, status: 'completed' } });
    }
    if (rand() < 0.2) {
      const id = `item_${item++}`;
      const base = { id, type: 'mcp_tool_call', server: 'docs', tool: 'search', arguments: { q: words(rand, 3) } };
      yield line({ type: 'item.started', item: { ...base, result: null, error: null, status: 'in_progress' } });
      yield line({
        type: 'item.completed',
        item: {
          ...base,
          result: { content: [{ type: 'text', text: words(rand, 20) }], structured_content: null },
          error: null,
          status: 'completed',
        },
      });
    }
    yield line({
      type: 'item.completed',
      item: { id: `item_${item++}`, type: 'agent_message', text: `${words(rand, 20 + Math.floor(rand() * 40))}.` },
    });
    input += 2000 + Math.floor(rand() * 3000);
    output += 100 + Math.floor(rand() * 400);
    yield line({
      type: 'turn.completed',
      usage: {
        input_tokens: input,
        cached_input_tokens: Math.floor(input / 2),
        output_tokens: output,
        reasoning_output_tokens: Math.floor(output / 3),
      },
    });
  }
}

/**
 * An Anthropic Messages SSE stream of many responses in sequence (as a proxy log holds them):
 * each has text deltas, usually a `tool_use` block with streamed JSON input, a usage
 * `message_delta` and `message_stop`. Yields one SSE frame at a time.
 */
export function* anthropicSse(options: LongStreamOptions): Generator<string> {
  const rand = mulberry32(options.seed ?? 17);
  const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  for (let r = 0; r < options.turns; r++) {
    const inputTokens = 1000 + Math.floor(rand() * 4000);
    yield frame('message_start', {
      type: 'message_start',
      message: {
        id: `msg_long_${r}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-hand',
        content: [],
        stop_reason: null,
        usage: { input_tokens: inputTokens, output_tokens: 1 },
      },
    });
    yield frame('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    });
    const deltas = 2 + Math.floor(rand() * 8);
    for (let d = 0; d < deltas; d++)
      yield frame('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: `${words(rand, 3 + Math.floor(rand() * 6))} ` },
      });
    yield frame('content_block_stop', { type: 'content_block_stop', index: 0 });
    const tool = rand() < 0.8;
    if (tool) {
      yield frame('content_block_start', {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: `toolu_long_${r}`, name: 'read_file', input: {} },
      });
      const path = JSON.stringify({ path: PATHS[Math.floor(rand() * PATHS.length)] });
      const cut = 1 + Math.floor(rand() * (path.length - 1));
      yield frame('content_block_delta', {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: path.slice(0, cut) },
      });
      yield frame('content_block_delta', {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: path.slice(cut) },
      });
      yield frame('content_block_stop', { type: 'content_block_stop', index: 1 });
    }
    yield frame('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: tool ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: 20 + Math.floor(rand() * 300) },
    });
    yield frame('message_stop', { type: 'message_stop' });
  }
}
