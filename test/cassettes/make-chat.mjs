#!/usr/bin/env node
// Writes the hand-made chat cassettes beside this file: `node test/cassettes/make-chat.mjs`.
// Every response body is written by us in Anthropic's real Messages streaming format
// (named-event SSE: message_start, content_block_start/delta/stop, ping, message_delta with
// stop_reason and usage, message_stop), in the style of ../../cassettes/make.mjs; ids, texts and
// token counts are invented. The replay server serves the exchanges in order, one per request,
// and honours the per-chunk `delayMs` of a hand-made cassette (the slow stream Esc aborts).
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

/** One response as a list of SSE events (each a string), so a chunk plan can follow events. */
function events(turn, n) {
  const ev = (type, data) => `event: ${type}\ndata: ${j({ type, ...data })}\n\n`;
  const out = [ev('message_start', { message: { id: `msg_chat_${turn.tag}_${n}`, type: 'message', role: 'assistant', model: MODEL, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 900 + 150 * n, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } } })];
  let index = 0;
  if (turn.text) {
    out.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    out.push('event: ping\ndata: {"type": "ping"}\n\n');
    for (const p of pieces(turn.text, turn.piece ?? 24)) out.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: p } }));
    out.push(ev('content_block_stop', { index }));
    index++;
  }
  for (const call of turn.calls ?? []) {
    out.push(ev('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } }));
    out.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } }));
    for (const p of pieces(j(call.args), 20)) out.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: p } }));
    out.push(ev('content_block_stop', { index }));
    index++;
  }
  out.push(ev('message_delta', { delta: { stop_reason: turn.calls ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 40 + 9 * n } }));
  out.push(ev('message_stop', {}));
  return out;
}

function write(name, description, turns) {
  const dir = path.join(here, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'cassette.json'), `${j({ schema: 'minicode.cassette.v1', format: 'anthropic', model: MODEL, origin: 'hand-made', description })}\n`);
  turns.forEach((turn, i) => {
    const stem = String(i + 1).padStart(3, '0');
    const evs = events(turn, i + 1);
    const body = evs.join('');
    fs.writeFileSync(path.join(dir, `${stem}.response.sse`), body);
    const response = { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' }, bodyFile: `${stem}.response.sse` };
    if (turn.delayMs) response.chunks = evs.map((e) => ({ bytes: Buffer.byteLength(e), delayMs: turn.delayMs }));
    fs.writeFileSync(path.join(dir, `${stem}.json`), `${JSON.stringify({ request: { method: 'POST', path: '/v1/messages' }, response }, null, 2)}\n`);
  });
}

write('chat-two-turn', 'Hand-made chat: prompt 1 gets a plain answer; prompt 2 reads README.md, then answers.', [
  { tag: 'a', text: 'Hello! I am minicode. Ask me about this project.' },
  { tag: 'b', text: 'Let me read the README.', calls: [{ id: 'toolu_chat_read_1', name: 'read_file', args: { path: 'README.md' } }] },
  { tag: 'c', text: 'The README says this is the chat test project.' },
]);

write('chat-approval', 'Hand-made chat: prompt 1 runs a bash command (asks; answered allow), prompt 2 writes a file (asks; answered deny).', [
  { tag: 'a', text: 'Running the command.', calls: [{ id: 'toolu_chat_bash_1', name: 'bash', args: { command: 'echo approved-output' } }] },
  { tag: 'b', text: 'The command printed approved-output.' },
  { tag: 'c', text: 'Writing the file.', calls: [{ id: 'toolu_chat_write_1', name: 'write_file', args: { path: 'denied.txt', content: 'should not exist\n' } }] },
  { tag: 'd', text: 'Understood, I did not write denied.txt.' },
]);

write('chat-slow', 'Hand-made chat: prompt 1 streams a long answer slowly (400 ms per event, Esc aborts it); prompt 2 answers at once.', [
  { tag: 'a', text: 'Counting slowly: one, two, three, four, five, six, seven, eight, nine, ten, eleven, twelve, thirteen, fourteen, fifteen, sixteen.', piece: 8, delayMs: 400 },
  { tag: 'b', text: 'Still here after the abort.' },
]);
console.log('chat cassettes written');
