/**
 * Exact fast parsers for the hot frames of the big providers: `JSON.parse` dominates decoding,
 * and most frames of a stream are deltas of one fixed shape that differ only in a few values.
 * Each template is one anchored regular expression for the frame's exact text (keys in the
 * provider's order, no whitespace, a fixed set of optional keys); V8 runs it as native code,
 * about 2x cheaper than `JSON.parse` building the same object (measured on the corpus frames).
 *
 * The contract, checked by a property test against `JSON.parse` on generated and mutated
 * frames: a template returns either undefined (the caller then uses `JSON.parse`, so nothing
 * unexpected is ever mishandled) or a value deep-equal to `JSON.parse(text)`, with the same key
 * order. That holds because:
 * - the regex accepts only valid JSON: strings follow the JSON string grammar exactly (no raw
 *   control characters, only the legal escapes), numbers are non-negative integers of at most 15
 *   digits (so `Number` gives the exact value `JSON.parse` gives), and nested objects are
 *   matched in full;
 * - every key is fixed text in the pattern, so there are no duplicate keys to resolve;
 * - values are decoded as `JSON.parse` decodes them: a string without a backslash is its text
 *   between the quotes, any other string token is handed to `JSON.parse` itself (a JSON value
 *   parses the same alone as inside a document); objects are built key by key in text order,
 *   which gives `JSON.parse`'s key order and its rule for a repeated key.
 * Providers plug them in as `SseJsonHandlers.parse`.
 */

/**
 * A JSON string token, quotes included (the exact JSON grammar; no `u` flag: code units).
 * Written as the "unrolled loop" `" plain* (escape plain*)* "`: a plain character-class loop is
 * a tight native scan in V8, while `(?:plain|escape)*` pushes a backtrack entry per character
 * (measured: a few per cent of template time on the corpus, whose strings are short).
 */
const STRING = String.raw`"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"`;
/** A non-negative JSON integer exactly representable as a double (at most 15 digits). */
const UINT = String.raw`(?:0|[1-9][0-9]{0,14})`;
/** JSON insignificant whitespace (Anthropic pads some frames with spaces before the last brace). */
const WS = String.raw`[ \t\n\r]*`;

/** The value of a JSON string token matched by {@link STRING}. */
function stringValue(token: string): string {
  return token.indexOf('\\') === -1 ? token.slice(1, -1) : (JSON.parse(token) as string);
}

/** One member of a chat `delta` whose value is a string or null; only known keys (never `__proto__`). */
const DELTA_MEMBER = String.raw`"(role|content|refusal|reasoning|reasoning_content|channel)":(${STRING}|null)`;

// OpenAI Chat Completions chunk with a single choice whose delta holds up to three string/null
// members (content, reasoning fields, role) or one tool-call argument fragment: OpenAI, DeepSeek, Groq and OpenAI-compatible
// servers keep this key order. A key repeated in the delta is assigned twice, which is what
// `JSON.parse` does too (first position, last value).
const CHAT_CHUNK = new RegExp(
  String.raw`^\{"id":(${STRING}),"object":"chat\.completion\.chunk","created":(${UINT}),"model":(${STRING})` +
    String.raw`(,"service_tier":(?:${STRING}|null))?(,"system_fingerprint":(?:${STRING}|null))?` +
    String.raw`,"choices":\[\{"index":(${UINT}),"delta":\{(?:${DELTA_MEMBER}(?:,${DELTA_MEMBER}(?:,${DELTA_MEMBER})?)?` +
    String.raw`|"tool_calls":\[\{"index":(${UINT}),"function":\{"arguments":(${STRING})\}\}\])?\}` +
    String.raw`(,"logprobs":null)?,"finish_reason":null\}\](,"usage":null)?(,"obfuscation":${STRING})?\}$`,
);

/** Decoder-ready value of an OpenAI chat chunk of the common delta shape, or undefined. */
export function parseChatChunk(text: string): unknown {
  const m = CHAT_CHUNK.exec(text);
  if (m === null) return undefined;
  const chunk: Record<string, unknown> = {
    id: stringValue(m[1] as string),
    object: 'chat.completion.chunk',
    created: Number(m[2]),
    model: stringValue(m[3] as string),
  };
  // Optional members: their text is `,"key":value`; the value is re-read from after the colon.
  if (m[4] !== undefined) chunk.service_tier = optionalValue(m[4]);
  if (m[5] !== undefined) chunk.system_fingerprint = optionalValue(m[5]);
  const delta: Record<string, unknown> = {};
  if (m[13] !== undefined) {
    // A tool-call argument fragment: `{"tool_calls":[{"index":N,"function":{"arguments":"..."}}]}`.
    delta.tool_calls = [{ index: Number(m[13]), function: { arguments: stringValue(m[14] as string) } }];
  }
  for (let k = 7; k <= 11 && m[k] !== undefined; k += 2) {
    const token = m[k + 1] as string;
    delta[m[k] as string] = token === 'null' ? null : stringValue(token);
  }
  const choice: Record<string, unknown> = { index: Number(m[6]), delta };
  if (m[15] !== undefined) choice.logprobs = null;
  choice.finish_reason = null;
  chunk.choices = [choice];
  if (m[16] !== undefined) chunk.usage = null;
  if (m[17] !== undefined) chunk.obfuscation = optionalValue(m[17]);
  return chunk;
}

/** The value of an optional `,"key":value` member whose value is a string token or null. */
function optionalValue(member: string): string | null {
  const token = member.slice(member.indexOf(':') + 1);
  return token === 'null' ? null : stringValue(token);
}

// OpenAI Responses delta events, in the key order OpenAI sends them. The type is returned as
// one of these literals rather than as the matched text: a literal string is internalized, so
// the decoder's `switch (type)` and Set lookups compare pointers and reuse a cached hash.
const RESPONSES_DELTA_TYPES = [
  'response.output_text.delta',
  'response.reasoning_summary_text.delta',
  'response.reasoning_text.delta',
  'response.function_call_arguments.delta',
] as const;
const RESPONSES_DELTA = new RegExp(
  String.raw`^\{"type":"response\.(?:(output_text)|(reasoning_summary_text)|(reasoning_text)|(function_call_arguments))\.delta"` +
    String.raw`,"sequence_number":(${UINT}),"item_id":(${STRING}),"output_index":(${UINT})` +
    String.raw`(?:,"content_index":(${UINT})|,"summary_index":(${UINT}))?,"delta":(${STRING})(,"logprobs":\[\])?(?:,"obfuscation":(${STRING}))?\}$`,
);

/** Decoder-ready value of an OpenAI Responses delta event, or undefined. */
export function parseResponsesDelta(text: string): unknown {
  const m = RESPONSES_DELTA.exec(text);
  if (m === null) return undefined;
  const type = m[1] !== undefined ? 0 : m[2] !== undefined ? 1 : m[3] !== undefined ? 2 : 3;
  const event: Record<string, unknown> = {
    type: RESPONSES_DELTA_TYPES[type],
    sequence_number: Number(m[5]),
    item_id: stringValue(m[6] as string),
    output_index: Number(m[7]),
  };
  if (m[8] !== undefined) event.content_index = Number(m[8]);
  else if (m[9] !== undefined) event.summary_index = Number(m[9]);
  event.delta = stringValue(m[10] as string);
  if (m[11] !== undefined) event.logprobs = [];
  if (m[12] !== undefined) event.obfuscation = stringValue(m[12]);
  return event;
}

// Anthropic content_block_delta with a text, thinking or tool-input fragment (the delta type is
// returned as a literal, as for the Responses types above).
const ANTHROPIC_DELTA = new RegExp(
  String.raw`^\{"type":"content_block_delta","index":(${UINT}),"delta":\{"type":"(?:(text_delta)|(thinking_delta)|input_json_delta)"` +
    String.raw`,"(text|thinking|partial_json)":(${STRING})\}${WS}\}$`,
);

/** Decoder-ready value of an Anthropic content_block_delta, or undefined. */
export function parseAnthropicDelta(text: string): unknown {
  const m = ANTHROPIC_DELTA.exec(text);
  if (m === null) return undefined;
  const delta: Record<string, unknown> = { type: m[2] !== undefined ? 'text_delta' : m[3] !== undefined ? 'thinking_delta' : 'input_json_delta' };
  delta[m[4] as string] = stringValue(m[5] as string);
  return { type: 'content_block_delta', index: Number(m[1]), delta };
}
