import { createParser } from 'eventsource-parser';

/** What one response turn says: its text and its tool calls (arguments reassembled). */
export interface Turn {
  text: string;
  calls: { id: string; name: string; args: unknown }[];
  /** The provider's terminator was seen ([DONE], message_stop, response.completed, done:true, finishReason). */
  terminated: boolean;
}

function sse(body: string): { event: string | undefined; data: string }[] {
  const events: { event: string | undefined; data: string }[] = [];
  const parser = createParser({ onEvent: (e) => events.push({ event: e.event, data: e.data }) });
  parser.feed(body);
  return events;
}

/**
 * A minimal reading of each wire format, for tests only: it checks that the hand-made
 * cassettes say what they mean (the real decoders live in lib/providers and are tested there).
 */
export function readTurn(format: string, body: string): Turn {
  const turn: Turn = { text: '', calls: [], terminated: false };
  if (format === 'ollama') {
    for (const line of body.split('\n').filter(Boolean)) {
      const record = JSON.parse(line);
      turn.text += record.message?.content ?? '';
      for (const c of record.message?.tool_calls ?? [])
        turn.calls.push({ id: `ollama-${turn.calls.length}`, name: c.function.name, args: c.function.arguments });
      if (record.done) turn.terminated = true;
    }
    return turn;
  }
  const partial = new Map<number, { id: string; name: string; json: string }>();
  for (const { event, data } of sse(body)) {
    if (data === '[DONE]') {
      turn.terminated = true;
      continue;
    }
    const d = JSON.parse(data);
    if (format === 'anthropic') {
      if (event !== d.type) throw new Error(`event name ${event} differs from data.type ${d.type}`);
      if (d.type === 'content_block_start' && d.content_block.type === 'tool_use')
        partial.set(d.index, { id: d.content_block.id, name: d.content_block.name, json: '' });
      if (d.type === 'content_block_delta' && d.delta.type === 'text_delta') turn.text += d.delta.text;
      if (d.type === 'content_block_delta' && d.delta.type === 'input_json_delta')
        partial.get(d.index)!.json += d.delta.partial_json;
      if (d.type === 'message_stop') turn.terminated = true;
    } else if (format === 'openai-chat') {
      for (const choice of d.choices) {
        turn.text += choice.delta.content ?? '';
        for (const t of choice.delta.tool_calls ?? []) {
          if (t.id) partial.set(t.index, { id: t.id, name: t.function.name, json: '' });
          partial.get(t.index)!.json += t.function.arguments ?? '';
        }
      }
    } else if (format === 'openai-responses') {
      if (event !== d.type) throw new Error(`event name ${event} differs from data.type ${d.type}`);
      if (d.type === 'response.output_text.delta') turn.text += d.delta;
      if (d.type === 'response.output_item.added' && d.item.type === 'function_call')
        partial.set(d.output_index, { id: d.item.call_id, name: d.item.name, json: '' });
      if (d.type === 'response.function_call_arguments.delta') partial.get(d.output_index)!.json += d.delta;
      if (d.type === 'response.completed') turn.terminated = true;
    } else if (format === 'gemini') {
      for (const part of d.candidates[0].content.parts) {
        if (part.text) turn.text += part.text;
        if (part.functionCall)
          turn.calls.push({
            id: `gemini-${turn.calls.length}`,
            name: part.functionCall.name,
            args: part.functionCall.args,
          });
      }
      if (d.candidates[0].finishReason) turn.terminated = true;
    }
  }
  for (const p of [...partial.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v))
    turn.calls.push({ id: p.id, name: p.name, args: JSON.parse(p.json) });
  return turn;
}
