#!/usr/bin/env node
// Writes the hand-made cassettes of the ACP tests: `node test/cassettes/make-acp.mjs`.
// Every response body is written by us in Anthropic's real Messages streaming wire format
// (named-event SSE: message_start, content_block_*, ping, message_delta, message_stop; the
// same shapes as cassettes/make.mjs), not recorded from a live service. The replay server
// serves each cassette's exchanges in order, one per model request of the whole process.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const MODEL = 'claude-sonnet-4-5';
const j = (v) => JSON.stringify(v);

function pieces(s, n) {
  const out = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out.length ? out : [''];
}

/** One Anthropic streamed response: optional text, then tool_use blocks. */
function body(turn, n) {
  const ev = (type, data) => `event: ${type}\ndata: ${j({ type, ...data })}\n\n`;
  let out = ev('message_start', { message: { id: `msg_acp${n}`, type: 'message', role: 'assistant', model: MODEL, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 300 + 50 * n, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } } });
  let index = 0;
  if (turn.text) {
    out += ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
    out += 'event: ping\ndata: {"type": "ping"}\n\n';
    for (const p of turn.textPieces ?? pieces(turn.text, 24)) out += ev('content_block_delta', { index, delta: { type: 'text_delta', text: p } });
    out += ev('content_block_stop', { index });
    index++;
  }
  for (const call of turn.calls ?? []) {
    out += ev('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } });
    out += ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } });
    for (const p of pieces(j(call.args), 20)) out += ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: p } });
    out += ev('content_block_stop', { index });
    index++;
  }
  out += ev('message_delta', { delta: { stop_reason: turn.calls ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 20 + 5 * n } });
  out += ev('message_stop', {});
  return out;
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
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'cassette.json'), `${JSON.stringify({ schema: 'minicode.cassette.v1', format: 'anthropic', model: MODEL, origin: 'hand-made', description }, null, 2)}\n`);
  turns.forEach((turn, i) => {
    const stem = String(i + 1).padStart(3, '0');
    const text = body(turn, i + 1);
    fs.writeFileSync(path.join(dir, `${stem}.response.sse`), text);
    const response = { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' }, bodyFile: `${stem}.response.sse` };
    if (turn.slow) response.chunks = slowChunks(text, turn.textPieces[0], turn.slow.slices, turn.slow.delayMs);
    fs.writeFileSync(path.join(dir, `${stem}.json`), `${JSON.stringify({ request: { method: 'POST', path: '/v1/messages' }, response }, null, 2)}\n`);
  });
}

// The conformance session (one `minicode acp` process, two sessions, requests in this order).
write('acp-conformance', 'Hand-made ACP conformance run: bash allowed, bash rejected, an edit, a slow stream to cancel beside a second session, a turn after the cancel.', [
  // S1 "run the greeting command" (ask mode): bash asks; the client allows.
  { text: 'Running it.', calls: [{ id: 'toolu_acp_1', name: 'bash', args: { command: 'echo hello-from-acp' } }] },
  { text: 'The command printed hello-from-acp.' },
  // S1 "clean the build": bash asks; the client rejects.
  { text: 'Cleaning up.', calls: [{ id: 'toolu_acp_2', name: 'bash', args: { command: 'rm -rf build' } }] },
  { text: 'Understood, I did not run it.' },
  // S1 "fix the greeting" (auto mode): edit reads and writes through the client.
  { calls: [{ id: 'toolu_acp_3', name: 'edit', args: { path: 'greeting.txt', old_string: 'hello old world', new_string: 'hello new world' } }] },
  { text: 'Edited greeting.txt.' },
  // S1 "take your time": a slow stream, cancelled mid-turn (the rest would take 20 s).
  { text: 'Thinking about it slowly and at length.', textPieces: ['Thinking about it ', 'slowly ', 'and ', 'at ', 'length.'], slow: { slices: 40, delayMs: 500 } },
  // S2 "hello", answered while S1's slow stream is still open.
  { text: 'Hello from the second session.' },
  // S1 "are you still there?" after the cancel.
  { text: 'Still here after the cancel.' },
]);

// A fresh process loads S1 from the store and continues it.
write('acp-load', 'Hand-made: one answer for the turn after session/load.', [{ text: 'Welcome back; I remember the greeting fix.' }]);

// The malformed-input run: after the bad lines, one normal prompt.
write('acp-malformed', 'Hand-made: one answer after the malformed input.', [{ text: 'Still serving after the bad input.' }]);

console.log('acp cassettes written');
