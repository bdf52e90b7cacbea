/**
 * How far a conversation has gone, read from a provider request body: the number of model
 * turns it already holds. The replay server's `by-turn` order serves exchange N+1 to a request
 * with N model turns, so thousands of concurrent runs can share one cassette: a first request
 * (no assistant message yet) always gets exchange 1, the request carrying the tool result of
 * turn 1 always gets exchange 2, whatever the interleaving of the runs.
 *
 * A model turn is a maximal run of consecutive model items in the body's message list:
 * - openai-chat, ollama: `messages[]` items with `role: "assistant"`;
 * - anthropic: `messages[]` items with `role: "assistant"`;
 * - gemini: `contents[]` items with `role: "model"`;
 * - openai-responses: `input[]` items with `role: "assistant"` or `type: "function_call"`
 *   (one turn may be several items: its text and each call).
 * Tool results (`role: "tool"`, `tool_result` blocks in a user message, `functionResponse`,
 * `function_call_output`) end a model turn.
 */

function isModelItem(item: unknown): boolean {
  if (!item || typeof item !== 'object') return false;
  const o = item as { role?: unknown; type?: unknown };
  return o.role === 'assistant' || o.role === 'model' || o.type === 'function_call' || o.type === 'reasoning';
}

/**
 * The role and item-type markers of a JSON body, in order. Inside a JSON string every quote is
 * escaped, so `"role":"assistant"` can only match a real key/value pair, never prompt text.
 */
const MARKERS =
  /"(?:role|type)"\s*:\s*"(assistant|model|function_call|reasoning|user|tool|system|developer|function_call_output)"/g;
const MODEL_MARKERS = new Set(['assistant', 'model', 'function_call', 'reasoning']);

/**
 * The fast path of {@link modelTurnsOf}: a scan over the markers without parsing (a batch
 * sends thousands of requests with multi-kilobyte tool schemas). Undefined when the body does
 * not start like a JSON object.
 */
export function scanModelTurns(text: string): number | undefined {
  if (!/^\s*\{/.test(text)) return undefined;
  let turns = 0;
  let inTurn = false;
  let sawAny = false;
  for (const m of text.matchAll(MARKERS)) {
    sawAny = true;
    const model = MODEL_MARKERS.has(m[1]!);
    if (model && !inTurn) turns++;
    inTurn = model;
  }
  return sawAny ? turns : undefined;
}

/** Model turns in a request body; undefined when the body is not a JSON chat request (bad data is a value). */
export function modelTurnsOf(body: Buffer | string): number | undefined {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const scanned = scanModelTurns(text);
  if (scanned !== undefined) return scanned;
  return parseModelTurns(text);
}

/** The parsing path (bodies without role markers, e.g. a bare `input` string). */
function parseModelTurns(body: string): number | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not JSON: the turn count is unknown.
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object') return undefined;
  const root = parsed as { messages?: unknown; contents?: unknown; input?: unknown };
  const list = Array.isArray(root.messages)
    ? root.messages
    : Array.isArray(root.contents)
      ? root.contents
      : Array.isArray(root.input)
        ? root.input
        : undefined;
  if (!list) return typeof root.input === 'string' ? 0 : undefined;
  let turns = 0;
  let inTurn = false;
  for (const item of list) {
    const model = isModelItem(item);
    if (model && !inTurn) turns++;
    inTurn = model;
  }
  return turns;
}
