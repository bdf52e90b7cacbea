import { argumentsObject } from '../conversation.js';
import { THINKING_BUDGETS } from './tuning.js';
import type { ReasoningLevel, RequestBuilder } from './types.js';
import { joinUrl, jsonHeaders } from './types.js';

/**
 * The keywords Gemini's OpenAPI-subset `Schema` takes; anything else (`$schema`, `$ref`,
 * `additionalProperties`, `const`, `oneOf`, `allOf`, `not`, `default`, `examples`, ...) is
 * refused or ignored there, so it is rewritten or left out. What is left out only loosens what
 * the model is shown: where minicode checks the input itself it checks the whole schema.
 */
const KEPT = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'items',
  'minItems',
  'maxItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'anyOf',
  'propertyOrdering',
]);
/** String formats Gemini accepts (others are refused with a 400). */
const STRING_FORMATS = new Set(['enum', 'date-time']);
/** How deep `$ref`s are followed; a recursive schema is cut there to a bare type. */
const MAX_REF_DEPTH = 8;

/** The schema a local `$ref` (`#/$defs/x`, `#/definitions/x`, any JSON pointer into the root) points at. */
function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function rewrite(schema: unknown, root: unknown, depth: number): unknown {
  if (Array.isArray(schema)) return schema.map((s) => rewrite(s, root, depth));
  if (!schema || typeof schema !== 'object') return schema;
  const source = schema as Record<string, unknown>;
  if (typeof source.$ref === 'string') {
    const target = resolveRef(root, source.$ref);
    if (target && typeof target === 'object' && depth < MAX_REF_DEPTH)
      return rewrite({ ...(target as object), ...withoutRef(source) }, root, depth + 1);
    const type = target && typeof target === 'object' ? (target as { type?: unknown }).type : undefined;
    return typeof type === 'string' ? { type } : {};
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'oneOf') out.anyOf = rewrite(value, root, depth);
    else if (key === 'const') {
      if (typeof value === 'string') out.enum = [value];
    } else if (key === 'type' && Array.isArray(value)) {
      const types = value.filter((t) => t !== 'null');
      if (types.length < value.length) out.nullable = true;
      if (types.length === 1) out.type = types[0];
      else if (types.length > 1) out.anyOf = types.map((t) => ({ type: t }));
    } else if (key === 'format') {
      const isString = source.type === 'string' || (Array.isArray(source.type) && source.type.includes('string'));
      if (!isString || STRING_FORMATS.has(String(value))) out.format = value;
    } else if (key === 'properties' && value && typeof value === 'object') {
      // `properties` maps names to schemas: keep every name, rewrite each value.
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v, root, depth)]));
    } else if (KEPT.has(key)) out[key] = rewrite(value, root, depth);
  }
  return out;
}

function withoutRef(schema: Record<string, unknown>): Record<string, unknown> {
  const { $ref: _ref, ...rest } = schema;
  return rest;
}

/** A copy of a JSON Schema in Gemini's subset: local `$ref`s inlined, the rest rewritten or left out (recursively). */
export function geminiSchema(schema: unknown): unknown {
  return rewrite(schema, schema, 0);
}

/**
 * Gemini `thinkingConfig` for a level: a budget, with thought summaries included so they reach
 * the reasoning events. `off` is budget 0, which Pro models refuse (they always think): nothing
 * is sent for them.
 */
export function geminiThinking(model: string, level: ReasoningLevel): Record<string, unknown> | undefined {
  if (level === 'off') return /pro/.test(model) ? undefined : { thinkingBudget: 0 };
  return { thinkingBudget: THINKING_BUDGETS[level], includeThoughts: true };
}

/**
 * Gemini `streamGenerateContent?alt=sse`. Gemini caches implicitly: a request whose beginning
 * (system instruction, tools, earlier contents) matches a recent one is billed at the cached rate
 * and reported as `cachedContentTokenCount`; the builder keeps that beginning byte-stable. Gemini has no tool-call ids on the wire: results are
 * matched by function name, and a call's `thoughtSignature` must come back on the same part.
 */
export const buildGeminiRequest: RequestBuilder = (conversation, options) => {
  const contents: { role: 'user' | 'model'; parts: Record<string, unknown>[] }[] = [];
  const push = (role: 'user' | 'model', parts: Record<string, unknown>[]) => {
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const m of conversation.messages) {
    if (m.role === 'user')
      push('user', [
        ...(m.images ?? []).map((i) => ({ inline_data: { mime_type: i.mediaType, data: i.data } })),
        { text: m.text },
      ]);
    else if (m.role === 'assistant') {
      const parts: Record<string, unknown>[] = [];
      for (const r of m.reasoning ?? []) if (r.format === 'gemini') parts.push(r.item as Record<string, unknown>);
      if (m.text) parts.push({ text: m.text });
      for (const c of m.toolCalls ?? []) {
        const part: Record<string, unknown> = {
          functionCall: { name: c.name, args: argumentsObject(c.argumentsText) },
        };
        if (c.signature) part.thoughtSignature = c.signature;
        parts.push(part);
      }
      if (parts.length > 0) push('model', parts);
    } else {
      const response = m.isError ? { error: m.content } : { content: m.content };
      push('user', [{ functionResponse: { name: m.name, response } }]);
    }
  }
  const body: Record<string, unknown> = { contents };
  if (conversation.system) body.systemInstruction = { parts: [{ text: conversation.system }] };
  if (conversation.tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: conversation.tools.map((t) => ({
          name: t.name,
          description: t.description,
          parameters: geminiSchema(t.jsonSchema),
        })),
      },
    ];
  }
  const generationConfig: Record<string, unknown> = {};
  if (options.maxTokens !== undefined) generationConfig.maxOutputTokens = options.maxTokens;
  if (options.temperature !== undefined) generationConfig.temperature = options.temperature;
  const thinkingConfig = options.tuning?.reasoning
    ? geminiThinking(options.model, options.tuning.reasoning)
    : undefined;
  if (thinkingConfig) generationConfig.thinkingConfig = thinkingConfig;
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  const headers = jsonHeaders(options.headers);
  if (options.apiKey) headers['x-goog-api-key'] = options.apiKey;
  const url = joinUrl(
    options.baseUrl,
    `v1beta/models/${encodeURIComponent(options.model)}:streamGenerateContent?alt=sse`,
  );
  return { url, method: 'POST', headers, body: JSON.stringify(body) };
};
