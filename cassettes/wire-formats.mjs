// The providers' wire formats, written by hand (framing, event names, field names and
// terminators as the providers send them), and the
// cassette folder writer: shared by `make.mjs` (the shipped cassettes) and by tests that build
// their own exchanges (`test/exec/`, `test/cassettes/make*.mjs`). A turn is
// `{ text?, calls?: [{ id, name, args } | { id, name, input }] }`: a call with a string `input` is
// a freeform (custom) tool call, which only openai-responses streams.
import fs from 'node:fs';
import path from 'node:path';

const j = (v) => JSON.stringify(v);

/** Split a string into pieces of about `n` chars (tool arguments stream in fragments). */
export function pieces(s, n) {
  const out = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out.length ? out : [''];
}

// A turn: { text?: string, calls?: [{ id, name, args }] } -------------------------------------

/**
 * One Anthropic Messages stream as its SSE events (each a string, so a chunk plan can follow
 * events): optional text, then tool_use blocks. `textPieces` overrides the 24-char text deltas;
 * `cacheReadTokens` (default 0) is the prompt part read from the cache, which Anthropic counts
 * apart from `input_tokens`.
 */
export function anthropicEvents(
  turn,
  { messageId, model, inputTokens, outputTokens, textPieces, cacheReadTokens = 0 },
) {
  const ev = (type, data) => `event: ${type}\ndata: ${j({ type, ...data })}\n\n`;
  const out = [
    ev('message_start', {
      message: {
        id: messageId,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: inputTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: cacheReadTokens,
          output_tokens: 1,
        },
      },
    }),
  ];
  let index = 0;
  if (turn.text) {
    out.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    out.push('event: ping\ndata: {"type": "ping"}\n\n');
    for (const p of textPieces ?? pieces(turn.text, 24))
      out.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: p } }));
    out.push(ev('content_block_stop', { index }));
    index++;
  }
  for (const call of turn.calls ?? []) {
    out.push(
      ev('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      }),
    );
    out.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } }));
    for (const p of pieces(j(call.args), 20))
      out.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: p } }));
    out.push(ev('content_block_stop', { index }));
    index++;
  }
  out.push(
    ev('message_delta', {
      delta: { stop_reason: turn.calls ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: outputTokens },
    }),
  );
  out.push(ev('message_stop', {}));
  return out;
}

export const FORMATS = {
  anthropic: {
    contentType: 'text/event-stream; charset=utf-8',
    ext: 'sse',
    body(turn, n, model) {
      return anthropicEvents(turn, {
        messageId: `msg_mc${n}`,
        model,
        inputTokens: 400 + 90 * n,
        outputTokens: 30 + 7 * n,
      }).join('');
    },
  },
  'openai-chat': {
    contentType: 'text/event-stream; charset=utf-8',
    ext: 'sse',
    body(turn, n, model) {
      const id = `chatcmpl-mc${n}`;
      const chunk = (delta, finish = null) =>
        `data: ${j({ id, object: 'chat.completion.chunk', created: 1767225600 + n, model, system_fingerprint: 'fp_mc', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null })}\n\n`;
      let out = '';
      if (turn.text) {
        out += chunk({ role: 'assistant', content: '', refusal: null });
        for (const p of pieces(turn.text, 24)) out += chunk({ content: p });
      }
      (turn.calls ?? []).forEach((call, i) => {
        out += chunk({
          ...(turn.text || i > 0 ? {} : { role: 'assistant', content: null }),
          tool_calls: [{ index: i, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
        });
        for (const p of pieces(j(call.args), 12))
          out += chunk({ tool_calls: [{ index: i, function: { arguments: p } }] });
      });
      out += chunk({}, turn.calls ? 'tool_calls' : 'stop');
      out += `data: ${j({ id, object: 'chat.completion.chunk', created: 1767225600 + n, model, system_fingerprint: 'fp_mc', choices: [], usage: { prompt_tokens: 380 + 90 * n, completion_tokens: 25 + 7 * n, total_tokens: 405 + 97 * n } })}\n\n`;
      out += 'data: [DONE]\n\n';
      return out;
    },
  },
  'openai-responses': {
    contentType: 'text/event-stream; charset=utf-8',
    ext: 'sse',
    body(turn, n, model) {
      let seq = 0;
      const ev = (type, data) => `event: ${type}\ndata: ${j({ type, sequence_number: seq++, ...data })}\n\n`;
      const id = `resp_mc${n}`;
      const base = {
        id,
        object: 'response',
        created_at: 1767225600 + n,
        model,
        status: 'in_progress',
        output: [],
        error: null,
        incomplete_details: null,
        store: false,
        tool_choice: 'auto',
        usage: null,
      };
      let out = ev('response.created', { response: base });
      out += ev('response.in_progress', { response: base });
      const output = [];
      let oi = 0;
      if (turn.text) {
        const item = { type: 'message', id: `msg_mc${n}`, status: 'in_progress', role: 'assistant', content: [] };
        out += ev('response.output_item.added', { output_index: oi, item });
        out += ev('response.content_part.added', {
          item_id: item.id,
          output_index: oi,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        });
        for (const p of pieces(turn.text, 24))
          out += ev('response.output_text.delta', {
            item_id: item.id,
            output_index: oi,
            content_index: 0,
            delta: p,
            logprobs: [],
          });
        out += ev('response.output_text.done', {
          item_id: item.id,
          output_index: oi,
          content_index: 0,
          text: turn.text,
          logprobs: [],
        });
        const part = { type: 'output_text', text: turn.text, annotations: [] };
        out += ev('response.content_part.done', { item_id: item.id, output_index: oi, content_index: 0, part });
        const done = { ...item, status: 'completed', content: [part] };
        out += ev('response.output_item.done', { output_index: oi, item: done });
        output.push(done);
        oi++;
      }
      for (const call of turn.calls ?? []) {
        if (typeof call.input === 'string') {
          // A freeform tool call: the item added empty, its input in pieces, then done whole.
          const item = {
            type: 'custom_tool_call',
            id: `ctc_mc${n}_${oi}`,
            call_id: call.id,
            name: call.name,
            input: '',
            status: 'in_progress',
          };
          out += ev('response.output_item.added', { output_index: oi, item });
          for (const p of pieces(call.input, 16))
            out += ev('response.custom_tool_call_input.delta', { item_id: item.id, output_index: oi, delta: p });
          out += ev('response.custom_tool_call_input.done', { item_id: item.id, output_index: oi, input: call.input });
          const done = { ...item, input: call.input, status: 'completed' };
          out += ev('response.output_item.done', { output_index: oi, item: done });
          output.push(done);
          oi++;
          continue;
        }
        const args = j(call.args);
        const item = {
          type: 'function_call',
          id: `fc_mc${n}_${oi}`,
          call_id: call.id,
          name: call.name,
          arguments: '',
          status: 'in_progress',
        };
        out += ev('response.output_item.added', { output_index: oi, item });
        for (const p of pieces(args, 12))
          out += ev('response.function_call_arguments.delta', { item_id: item.id, output_index: oi, delta: p });
        out += ev('response.function_call_arguments.done', { item_id: item.id, output_index: oi, arguments: args });
        const done = { ...item, arguments: args, status: 'completed' };
        out += ev('response.output_item.done', { output_index: oi, item: done });
        output.push(done);
        oi++;
      }
      out += ev('response.completed', {
        response: {
          ...base,
          status: 'completed',
          output,
          usage: {
            input_tokens: 390 + 90 * n,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 28 + 7 * n,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 418 + 97 * n,
          },
        },
      });
      return out;
    },
  },
  gemini: {
    contentType: 'text/event-stream',
    ext: 'sse',
    body(turn, n, model) {
      // Gemini frames its SSE with CRLF line ends; it has no call ids and no [DONE].
      const frame = (obj) => `data: ${j(obj)}\r\n\r\n`;
      const usage = (final) => ({
        promptTokenCount: 370 + 90 * n,
        ...(final ? { candidatesTokenCount: 20 + 7 * n } : {}),
        totalTokenCount: 370 + 90 * n + (final ? 20 + 7 * n : 0),
      });
      const responseId = `mc-gemini-${n}`;
      let out = '';
      const texts = turn.text ? pieces(turn.text, 40) : [];
      const calls = (turn.calls ?? []).map((c) => ({ functionCall: { name: c.name, args: c.args } }));
      texts.forEach((t, i) => {
        const last = i === texts.length - 1 && calls.length === 0;
        out += frame({
          candidates: [
            { content: { parts: [{ text: t }], role: 'model' }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 },
          ],
          usageMetadata: usage(last),
          modelVersion: model,
          responseId,
        });
      });
      if (calls.length)
        out += frame({
          candidates: [{ content: { parts: calls, role: 'model' }, finishReason: 'STOP', index: 0 }],
          usageMetadata: usage(true),
          modelVersion: model,
          responseId,
        });
      return out;
    },
  },
  ollama: {
    contentType: 'application/x-ndjson',
    ext: 'ndjson',
    body(turn, n, model) {
      const at = (k) => `2026-01-01T00:00:0${n}.${String(100 + k).padStart(6, '0')}Z`;
      let k = 0;
      let out = '';
      for (const p of turn.text ? pieces(turn.text, 16) : [])
        out += `${j({ model, created_at: at(k++), message: { role: 'assistant', content: p }, done: false })}\n`;
      if (turn.calls)
        out += `${j({ model, created_at: at(k++), message: { role: 'assistant', content: '', tool_calls: turn.calls.map((c, i) => ({ function: { index: i, name: c.name, arguments: c.args } })) }, done: false })}\n`;
      out += `${j({ model, created_at: at(k++), message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', total_duration: 812345678, load_duration: 1234567, prompt_eval_count: 360 + 90 * n, prompt_eval_duration: 123456789, eval_count: 22 + 7 * n, eval_duration: 456789012 })}\n`;
      return out;
    },
  },
};

export const MODELS = {
  anthropic: 'claude-sonnet-4-5',
  'openai-chat': 'gpt-4.1-mini',
  'openai-responses': 'gpt-4.1-mini',
  gemini: 'gemini-2.5-flash',
  ollama: 'llama3.2',
};

export function requestPath(format, model) {
  switch (format) {
    case 'anthropic':
      return '/v1/messages';
    case 'openai-chat':
      return '/v1/chat/completions';
    case 'openai-responses':
      return '/v1/responses';
    case 'gemini':
      return `/v1beta/models/${model}:streamGenerateContent?alt=sse`;
    case 'ollama':
      return '/api/chat';
    default:
      throw new Error(format);
  }
}

/** Empty (or create) a cassette folder and write its `cassette.json` (`indent` 0: one line). */
export function startCassette(dir, { format, model, description }, indent = 2) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'cassette.json'),
    `${JSON.stringify({ schema: 'minicode.cassette.v1', format, model, origin: 'hand-made', description }, null, indent)}\n`,
  );
}

/** Write exchange `n` (1-based): its response body and `NNN.json`; `chunks` is an optional delivery plan. */
export function writeExchange(dir, n, { requestPath, contentType, ext, body, chunks }) {
  const stem = String(n).padStart(3, '0');
  const bodyFile = `${stem}.response.${ext}`;
  fs.writeFileSync(path.join(dir, bodyFile), body);
  const response = { status: 200, headers: { 'content-type': contentType }, bodyFile };
  if (chunks) response.chunks = chunks;
  fs.writeFileSync(
    path.join(dir, `${stem}.json`),
    `${JSON.stringify({ request: { method: 'POST', path: requestPath }, response }, null, 2)}\n`,
  );
}

/** Write a whole cassette folder: one exchange per turn, bodies in `format`'s wire format. */
export function writeCassette(dir, format, description, turns) {
  const spec = FORMATS[format];
  const model = MODELS[format];
  startCassette(dir, { format, model, description });
  turns.forEach((turn, i) => {
    writeExchange(dir, i + 1, {
      requestPath: requestPath(format, model),
      contentType: spec.contentType,
      ext: spec.ext,
      body: spec.body(turn, i + 1, model),
    });
  });
}
