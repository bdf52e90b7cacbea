#!/usr/bin/env node
// Writes the hand-made chat cassettes beside this file: `node test/cassettes/make-chat.mjs`.
// Every response body is written by us in Anthropic's real Messages streaming format
// (named-event SSE: message_start, content_block_start/delta/stop, ping, message_delta with
// stop_reason and usage, message_stop), in the style of ../../cassettes/make.mjs; ids, texts and
// token counts are invented. The replay server serves the exchanges in order, one per request,
// and honours the per-chunk `delayMs` of a hand-made cassette (the slow stream Esc aborts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { anthropicEvents, pieces, startCassette, writeExchange } from '../../cassettes/wire-formats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const MODEL = 'claude-sonnet-4-5';

/** One response as a list of SSE events (each a string), so a chunk plan can follow events. */
function events(turn, n) {
  const textPieces = turn.text ? pieces(turn.text, turn.piece ?? 24) : undefined;
  const inputTokens = turn.inputTokens ?? 900 + 150 * n;
  return anthropicEvents(turn, {
    messageId: `msg_chat_${turn.tag}_${n}`,
    model: MODEL,
    inputTokens,
    outputTokens: 40 + 9 * n,
    textPieces,
    cacheReadTokens: turn.cacheReadTokens ?? 0,
  });
}

function write(name, description, turns) {
  const dir = path.join(here, name);
  startCassette(dir, { format: 'anthropic', model: MODEL, description });
  turns.forEach((turn, i) => {
    const evs = events(turn, i + 1);
    // `stallMs`: the stream opens (message_start), then nothing arrives for that long.
    const chunks = turn.delayMs
      ? evs.map((e) => ({ bytes: Buffer.byteLength(e), delayMs: turn.delayMs }))
      : turn.stallMs
        ? evs.map((e, k) => ({ bytes: Buffer.byteLength(e), ...(k === 1 ? { delayMs: turn.stallMs } : {}) }))
        : undefined;
    writeExchange(dir, i + 1, {
      requestPath: '/v1/messages',
      contentType: 'text/event-stream; charset=utf-8',
      ext: 'sse',
      body: evs.join(''),
      chunks,
    });
  });
}

write('chat-two-turn', 'Hand-made chat: prompt 1 gets a plain answer; prompt 2 reads README.md, then answers.', [
  { tag: 'a', text: 'Hello! I am minicode. Ask me about this project.' },
  {
    tag: 'b',
    text: 'Let me read the README.',
    calls: [{ id: 'toolu_chat_read_1', name: 'read_file', args: { path: 'README.md' } }],
  },
  { tag: 'c', text: 'The README says this is the chat test project.' },
]);

write(
  'chat-approval',
  'Hand-made chat: prompt 1 runs a bash command (asks; answered allow), prompt 2 writes a file (asks; answered deny).',
  [
    {
      tag: 'a',
      text: 'Running the command.',
      calls: [{ id: 'toolu_chat_bash_1', name: 'bash', args: { command: 'echo approved-output' } }],
    },
    { tag: 'b', text: 'The command printed approved-output.' },
    {
      tag: 'c',
      text: 'Writing the file.',
      calls: [
        { id: 'toolu_chat_write_1', name: 'write_file', args: { path: 'denied.txt', content: 'should not exist\n' } },
      ],
    },
    { tag: 'd', text: 'Understood, I did not write denied.txt.' },
  ],
);

write('chat-edit', 'Hand-made chat: prompt 1 edits greet.js (asks with its diff; answered allow), then answers.', [
  {
    tag: 'a',
    text: 'Changing the greeting.',
    calls: [
      {
        id: 'toolu_chat_edit_1',
        name: 'edit',
        args: { path: 'greet.js', old_string: "'Hello ' + name", new_string: '`Hello, ${name}!`' },
      },
    ],
  },
  { tag: 'b', text: 'The greeting now reads Hello, name!' },
]);

write(
  'chat-cached',
  'Hand-made chat: two plain answers whose prompts are mostly read from the cache (Anthropic counts input_tokens apart from cache reads).',
  [
    // The cache reads stand for the default system prompt and tool schemas: test/chat/footer.test.ts measures against them.
    { tag: 'a', text: 'Hello from the cache.', inputTokens: 111, cacheReadTokens: 3600 },
    { tag: 'b', text: 'Still cached.', inputTokens: 140, cacheReadTokens: 3600 },
  ],
);

write(
  'chat-slow',
  'Hand-made chat: prompt 1 streams a long answer slowly (400 ms per event, Esc aborts it); prompt 2 answers at once.',
  [
    {
      tag: 'a',
      text: 'Counting slowly: one, two, three, four, five, six, seven, eight, nine, ten, eleven, twelve, thirteen, fourteen, fifteen, sixteen.',
      piece: 8,
      delayMs: 400,
    },
    { tag: 'b', text: 'Still here after the abort.' },
  ],
);
write(
  'chat-stall',
  'Hand-made chat: prompt 1 stalls 6 s after the stream opens, then runs a bash command printing 12 lines; prompt 2 answers at once.',
  [
    {
      tag: 'a',
      text: 'Listing the rows.',
      stallMs: 6000,
      calls: [
        { id: 'toolu_chat_rows_1', name: 'bash', args: { command: "printf 'row %s\\n' 1 2 3 4 5 6 7 8 9 10 11 12" } },
      ],
    },
    { tag: 'b', text: 'The command printed twelve rows.' },
    { tag: 'c', text: 'Still here.' },
  ],
);
console.log('chat cassettes written');
