import { argumentsObject } from '../conversation.js';
import { THINKING_BUDGETS } from './tuning.js';
import type { ReasoningLevel, RequestBuilder } from './types.js';
import { joinUrl, jsonHeaders } from './types.js';

/** JSON Schema keywords Gemini's OpenAPI-subset `parameters` rejects. */
const UNSUPPORTED = new Set(['$schema', 'additionalProperties', '$ref', '$defs', 'definitions', 'default', 'examples']);

/** A copy of a JSON Schema without the keywords Gemini rejects (recursively). */
export function geminiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(geminiSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (UNSUPPORTED.has(key)) continue;
    // `properties` maps names to schemas: keep every name, clean each value.
    out[key] = key === 'properties' && value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, geminiSchema(v)])) : geminiSchema(value);
  }
  return out;
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
    if (m.role === 'user') push('user', [{ text: m.text }]);
    else if (m.role === 'assistant') {
      const parts: Record<string, unknown>[] = [];
      for (const r of m.reasoning ?? []) if (r.format === 'gemini') parts.push(r.item as Record<string, unknown>);
      if (m.text) parts.push({ text: m.text });
      for (const c of m.toolCalls ?? []) {
        const part: Record<string, unknown> = { functionCall: { name: c.name, args: argumentsObject(c.argumentsText) } };
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
    body.tools = [{ functionDeclarations: conversation.tools.map((t) => ({ name: t.name, description: t.description, parameters: geminiSchema(t.jsonSchema) })) }];
  }
  const generationConfig: Record<string, unknown> = {};
  if (options.maxTokens !== undefined) generationConfig.maxOutputTokens = options.maxTokens;
  if (options.temperature !== undefined) generationConfig.temperature = options.temperature;
  const thinkingConfig = options.tuning?.reasoning ? geminiThinking(options.model, options.tuning.reasoning) : undefined;
  if (thinkingConfig) generationConfig.thinkingConfig = thinkingConfig;
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  const headers = jsonHeaders(options.headers);
  if (options.apiKey) headers['x-goog-api-key'] = options.apiKey;
  const url = joinUrl(options.baseUrl, `v1beta/models/${encodeURIComponent(options.model)}:streamGenerateContent?alt=sse`);
  return { url, method: 'POST', headers, body: JSON.stringify(body) };
};
