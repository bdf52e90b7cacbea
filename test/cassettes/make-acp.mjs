#!/usr/bin/env node
// Writes the hand-made cassettes of the ACP tests: `node test/cassettes/make-acp.mjs`.
// Every response body is written by us in Anthropic's real Messages streaming wire format
// (named-event SSE: message_start, content_block_*, ping, message_delta, message_stop; the
// same shapes as cassettes/make.mjs), not recorded from a live service. The replay server
// serves each cassette's exchanges in order, one per model request of the whole process.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { anthropicEvents, startCassette, writeExchange } from '../../cassettes/wire-formats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const MODEL = 'claude-sonnet-4-5';
const j = (v) => JSON.stringify(v);

/** One Anthropic streamed response: optional text (or the turn's `textPieces`), then tool_use blocks. */
function body(turn, n) {
  return anthropicEvents(turn, {
    messageId: `msg_acp${n}`,
    model: MODEL,
    inputTokens: 300 + 50 * n,
    outputTokens: 20 + 5 * n,
    textPieces: turn.textPieces,
  }).join('');
}

/**
 * A slow response: the first text delta goes out with the headers, then the rest trickles in
 * `slices` chunks `delayMs` apart (the whole stream takes slices x delayMs), so a test can cancel
 * the turn mid-stream. The replay server checks for a closed socket between chunks.
 */
function slowChunks(text, firstPiece, slices, delayMs) {
  const marker = `"text":${j(firstPiece)}}}\n\n`;
  const head = Buffer.byteLength(text.slice(0, text.indexOf(marker) + marker.length));
  const rest = Buffer.byteLength(text) - head;
  const size = Math.max(1, Math.ceil(rest / slices));
  const chunks = [{ bytes: head }];
  for (let left = rest; left > 0; left -= size) chunks.push({ bytes: Math.min(size, left), delayMs });
  return chunks;
}

function write(name, description, turns) {
  const dir = path.join(here, name);
  startCassette(dir, { format: 'anthropic', model: MODEL, description });
  turns.forEach((turn, i) => {
    const text = body(turn, i + 1);
    const chunks = turn.slow ? slowChunks(text, turn.textPieces[0], turn.slow.slices, turn.slow.delayMs) : undefined;
    writeExchange(dir, i + 1, {
      requestPath: '/v1/messages',
      contentType: 'text/event-stream; charset=utf-8',
      ext: 'sse',
      body: text,
      chunks,
    });
  });
}

// The conformance session (one `minicode acp` process, two sessions, requests in this order).
write(
  'acp-conformance',
  'Hand-made ACP conformance run: bash allowed, bash rejected, an edit, a slow stream to cancel beside a second session, a turn after the cancel.',
  [
    // S1 "run the greeting command" (ask mode): bash asks; the client allows.
    { text: 'Running it.', calls: [{ id: 'toolu_acp_1', name: 'bash', args: { command: 'echo hello-from-acp' } }] },
    { text: 'The command printed hello-from-acp.' },
    // S1 "clean the build": bash asks; the client rejects.
    { text: 'Cleaning up.', calls: [{ id: 'toolu_acp_2', name: 'bash', args: { command: 'rm -rf build' } }] },
    { text: 'Understood, I did not run it.' },
    // S1 "fix the greeting" (auto mode): edit reads and writes through the client.
    {
      calls: [
        {
          id: 'toolu_acp_3',
          name: 'edit',
          args: { path: 'greeting.txt', old_string: 'hello old world', new_string: 'hello new world' },
        },
      ],
    },
    { text: 'Edited greeting.txt.' },
    // S1 "take your time": a slow stream, cancelled mid-turn (the rest would take 20 s).
    {
      text: 'Thinking about it slowly and at length.',
      textPieces: ['Thinking about it ', 'slowly ', 'and ', 'at ', 'length.'],
      slow: { slices: 40, delayMs: 500 },
    },
    // S2 "hello", answered while S1's slow stream is still open.
    { text: 'Hello from the second session.' },
    // S1 "are you still there?" after the cancel.
    { text: 'Still here after the cancel.' },
  ],
);

// A fresh process loads S1 from the store and continues it.
write('acp-load', 'Hand-made: one answer for the turn after session/load.', [
  { text: 'Welcome back; I remember the greeting fix.' },
]);

// The malformed-input run: after the bad lines, one normal prompt.
write('acp-malformed', 'Hand-made: one answer after the malformed input.', [
  { text: 'Still serving after the bad input.' },
]);

console.log('acp cassettes written');
