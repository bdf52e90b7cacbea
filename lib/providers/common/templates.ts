/**
 * Exact fast parsers for the hot frames of the big providers: `JSON.parse` dominates decoding,
 * and most frames of a stream are deltas of one fixed shape that differ only in a few values.
 * Each template is one anchored regular expression for the frame's exact text (keys in the
 * provider's order, no whitespace, a fixed set of optional keys); V8 runs it as native code,
 * cheaper than `JSON.parse` building the same object (bench/provider-decode measures it).
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
 * a tight native scan in V8, while `(?:plain|escape)*` pushes a backtrack entry per character.
 */
const BODY = String.raw`[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*`;
const STRING = `"${BODY}"`;
/**
 * A JSON string token whose text between the quotes is captured: for the common string without
 * a backslash that capture IS the value, with no second slice (one allocation less per value).
 */
const STRING_BODY = `"(${BODY})"`;
/** A non-negative JSON integer exactly representable as a double (at most 15 digits). */
const UINT = String.raw`(?:0|[1-9][0-9]{0,14})`;
/** JSON insignificant whitespace (Anthropic pads some frames with spaces before the last brace). */
const WS = String.raw`[ \t\n\r]*`;

/** The value of a JSON string token whose text between the quotes, matched by {@link BODY}, is `body`. */
function bodyValue(body: string): string {
  return body.indexOf('\\') === -1 ? body : (JSON.parse(`"${body}"`) as string);
}

/** The value of a JSON string token matched by {@link STRING}. */
function stringValue(token: string): string {
  return token.indexOf('\\') === -1 ? token.slice(1, -1) : (JSON.parse(token) as string);
}

/** One member of a chat `delta` whose value is a string or null; only known keys (never `__proto__`). */
const DELTA_MEMBER = String.raw`"(role|content|refusal|reasoning|reasoning_content|channel)":(?:${STRING_BODY}|null)`;

// OpenAI Chat Completions chunk with a single choice whose delta holds up to three string/null
// members (content, reasoning fields, role) or one tool-call argument fragment: OpenAI, DeepSeek, Groq and OpenAI-compatible
// servers keep this key order. A key repeated in the delta is assigned twice, which is what
// `JSON.parse` does too (first position, last value).
//
// Matched in two sticky parts: the head (id ... `"delta":{`) and the tail (the delta and what
// follows). The head can match a text in at most one way (every step is decided by the fixed
// text that follows it: a string token ends at its first unescaped quote, an integer at its last
// digit, each optional member starts with its own key), and its match depends only on the text
// it covers, so `^HEAD TAIL$` matches exactly when the head matches and the tail matches right
// after it. That is what lets {@link createChatChunkParser} skip the head regex for a frame that
// starts with the previous frame's head text.
const CHAT_HEAD = new RegExp(
  String.raw`\{"id":(${STRING}),"object":"chat\.completion\.chunk","created":(${UINT}),"model":(${STRING})` +
    String.raw`(,"service_tier":(?:${STRING}|null))?(,"system_fingerprint":(?:${STRING}|null))?` +
    String.raw`,"choices":\[\{"index":(${UINT}),"delta":\{`,
  'y',
);
const CHAT_TAIL = new RegExp(
  String.raw`(?:${DELTA_MEMBER}(?:,${DELTA_MEMBER}(?:,${DELTA_MEMBER})?)?` +
    String.raw`|"tool_calls":\[\{"index":(${UINT}),"function":\{"arguments":${STRING_BODY}\}\}\])?\}` +
    String.raw`(,"logprobs":null)?,"finish_reason":null\}\](,"usage":null)?(?:,"obfuscation":${STRING_BODY})?\}$`,
  'y',
);

/** What the head of a chat chunk decodes to (the same for every frame of a stream, in practice). */
interface ChatHead {
  /** The head's text, up to and including `"delta":{`. */
  text: string;
  id: string;
  created: number;
  model: string;
  /** `undefined` when the member is absent. */
  serviceTier: string | null | undefined;
  systemFingerprint: string | null | undefined;
  index: number;
}

function matchChatHead(text: string): ChatHead | undefined {
  CHAT_HEAD.lastIndex = 0;
  const m = CHAT_HEAD.exec(text);
  if (m === null) return undefined;
  return {
    text: text.slice(0, CHAT_HEAD.lastIndex),
    id: stringValue(m[1] as string),
    created: Number(m[2]),
    model: stringValue(m[3] as string),
    // Optional members: their text is `,"key":value`; the value is re-read from after the colon.
    serviceTier: m[4] === undefined ? undefined : optionalValue(m[4]),
    systemFingerprint: m[5] === undefined ? undefined : optionalValue(m[5]),
    index: Number(m[6]),
  };
}

/** The chunk for a head and a tail match (tail groups: 1-6 delta members, 7-8 tool call, 9-11 optional members). */
function buildChatChunk(h: ChatHead, m: RegExpExecArray): unknown {
  const chunk: Record<string, unknown> = {
    id: h.id,
    object: 'chat.completion.chunk',
    created: h.created,
    model: h.model,
  };
  if (h.serviceTier !== undefined) chunk.service_tier = h.serviceTier;
  if (h.systemFingerprint !== undefined) chunk.system_fingerprint = h.systemFingerprint;
  const delta: Record<string, unknown> = {};
  if (m[7] !== undefined) {
    // A tool-call argument fragment: `{"tool_calls":[{"index":N,"function":{"arguments":"..."}}]}`.
    delta.tool_calls = [{ index: Number(m[7]), function: { arguments: bodyValue(m[8] as string) } }];
  }
  for (let k = 1; k <= 5 && m[k] !== undefined; k += 2) {
    const body = m[k + 1];
    setDeltaMember(delta, m[k] as string, body === undefined ? null : bodyValue(body));
  }
  const choice: Record<string, unknown> = { index: h.index, delta };
  if (m[9] !== undefined) choice.logprobs = null;
  choice.finish_reason = null;
  chunk.choices = [choice];
  if (m[10] !== undefined) chunk.usage = null;
  if (m[11] !== undefined) chunk.obfuscation = bodyValue(m[11]);
  return chunk;
}

/**
 * `delta[key] = value` with the key as a literal: the captured key is a fresh string, and a
 * store under it makes V8 look it up in its string table every time, while a named store with a
 * literal key is a plain inline-cached write. Same key order and last-value rule as `delta[key]`.
 */
function setDeltaMember(delta: Record<string, unknown>, key: string, value: string | null): void {
  switch (key) {
    case 'content':
      delta.content = value;
      break;
    case 'role':
      delta.role = value;
      break;
    case 'refusal':
      delta.refusal = value;
      break;
    case 'reasoning':
      delta.reasoning = value;
      break;
    case 'reasoning_content':
      delta.reasoning_content = value;
      break;
    default:
      delta[key] = value; // channel
  }
}

/** The chunk whose head (already matched) is `h`, if the rest of `text` matches the tail; else undefined. */
function chunkAfterHead(text: string, h: ChatHead): unknown {
  CHAT_TAIL.lastIndex = h.text.length;
  const m = CHAT_TAIL.exec(text);
  return m === null ? undefined : buildChatChunk(h, m);
}

/** Decoder-ready value of an OpenAI chat chunk of the common delta shape, or undefined. */
export function parseChatChunk(text: string): unknown {
  const h = matchChatHead(text);
  return h === undefined ? undefined : chunkAfterHead(text, h);
}

/**
 * {@link parseChatChunk} for one stream: it remembers the last head it matched, and a frame
 * that starts with that head's text (every delta of a stream, in practice: same id, model and
 * choice) is checked with one string compare instead of the head regex, and reuses the head's
 * values (equal strings and numbers, so the result is still exactly `JSON.parse`'s).
 */
export function createChatChunkParser(): (text: string) => unknown {
  let last: ChatHead | undefined;
  return (text) => {
    let h = last;
    // `slice` + `===` is a flat compare; `startsWith` walks the strings character by character.
    if (h === undefined || text.slice(0, h.text.length) !== h.text) {
      h = matchChatHead(text);
      if (h === undefined) return undefined;
      last = h;
    }
    return chunkAfterHead(text, h);
  };
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
// `sequence_number` comes second (OpenAI), last (LM Studio, Vercel AI SDK recordings) or not at
// all (older streams); both places are accepted (a key given twice keeps its first place and its
// last value, as in `JSON.parse`, which is what assigning in text order gives).
const RESPONSES_DELTA = new RegExp(
  String.raw`^\{"type":"response\.(?:(output_text)|(reasoning_summary_text)|(reasoning_text)|(function_call_arguments))\.delta"` +
    String.raw`(?:,"sequence_number":(${UINT}))?,"item_id":${STRING_BODY},"output_index":(${UINT})` +
    String.raw`(?:,"content_index":(${UINT})|,"summary_index":(${UINT}))?,"delta":${STRING_BODY}(,"logprobs":\[\])?(?:,"obfuscation":${STRING_BODY})?` +
    String.raw`(?:,"sequence_number":(${UINT}))?\}$`,
);

/** Decoder-ready value of an OpenAI Responses delta event, or undefined. */
export function parseResponsesDelta(text: string): unknown {
  const m = RESPONSES_DELTA.exec(text);
  if (m === null) return undefined;
  const type = m[1] !== undefined ? 0 : m[2] !== undefined ? 1 : m[3] !== undefined ? 2 : 3;
  const event: Record<string, unknown> = { type: RESPONSES_DELTA_TYPES[type] };
  if (m[5] !== undefined) event.sequence_number = Number(m[5]);
  event.item_id = bodyValue(m[6] as string);
  event.output_index = Number(m[7]);
  if (m[8] !== undefined) event.content_index = Number(m[8]);
  else if (m[9] !== undefined) event.summary_index = Number(m[9]);
  event.delta = bodyValue(m[10] as string);
  if (m[11] !== undefined) event.logprobs = [];
  if (m[12] !== undefined) event.obfuscation = bodyValue(m[12]);
  if (m[13] !== undefined) event.sequence_number = Number(m[13]);
  return event;
}

// Anthropic content_block_delta with a text, thinking or tool-input fragment (the delta type is
// returned as a literal, as for the Responses types above).
const ANTHROPIC_DELTA = new RegExp(
  String.raw`^\{"type":"content_block_delta","index":(${UINT}),"delta":\{"type":"(?:(text_delta)|(thinking_delta)|input_json_delta)"` +
    String.raw`,"(?:(text)|(thinking)|partial_json)":${STRING_BODY}\}${WS}\}$`,
);

/** Decoder-ready value of an Anthropic content_block_delta, or undefined. */
export function parseAnthropicDelta(text: string): unknown {
  const m = ANTHROPIC_DELTA.exec(text);
  if (m === null) return undefined;
  const delta: Record<string, unknown> = {
    type: m[2] !== undefined ? 'text_delta' : m[3] !== undefined ? 'thinking_delta' : 'input_json_delta',
  };
  // The key as a literal (see setDeltaMember).
  const value = bodyValue(m[6] as string);
  if (m[4] !== undefined) delta.text = value;
  else if (m[5] !== undefined) delta.thinking = value;
  else delta.partial_json = value;
  return { type: 'content_block_delta', index: Number(m[1]), delta };
}
