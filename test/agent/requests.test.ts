import { describe, expect, it } from 'vitest';
import type { Conversation } from '../../lib/agent/conversation.js';
import { buildRequest } from '../../lib/agent/requests/index.js';
import { geminiSchema } from '../../lib/agent/requests/gemini.js';
import { createToolRegistry } from '../../lib/tools/index.js';

/** A two-turn conversation: user asks, model calls read_file, tool answers, user follows up. */
const conversation: Conversation = {
  system: 'You are minicode.',
  tools: createToolRegistry({ only: ['read_file'] }).definitions(),
  messages: [
    { role: 'user', text: 'What is in README.md?' },
    {
      role: 'assistant',
      text: 'Let me look.',
      toolCalls: [{ id: 'call_1', name: 'read_file', argumentsText: '{"path":"README.md"}', signature: 'sig-g' }],
      reasoning: [
        { format: 'anthropic', item: { type: 'thinking', thinking: 'hmm', signature: 'sig-a' } },
        { format: 'openai-responses', item: { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'enc' } },
      ],
    },
    { role: 'tool', toolCallId: 'call_1', name: 'read_file', content: '1\t# Demo', isError: false },
    { role: 'user', text: 'Thanks' },
  ],
};

const parse = (format: Parameters<typeof buildRequest>[0], base: string, apiKey?: string) => {
  const request = buildRequest(format, conversation, { model: 'm-1', baseUrl: base, ...(apiKey ? { apiKey } : {}) });
  return { request, body: JSON.parse(request.body) as Record<string, any> };
};

describe('request builders', () => {
  it('build OpenAI chat with system, tool calls, tool results, tools and usage in the stream', () => {
    const { request, body } = parse('openai-chat', 'http://127.0.0.1:9/v1/', 'sk-test');
    expect(request.url).toBe('http://127.0.0.1:9/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer sk-test');
    expect(body).toMatchObject({ model: 'm-1', stream: true, stream_options: { include_usage: true } });
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are minicode.' },
      { role: 'user', content: 'What is in README.md?' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '1\t# Demo' },
      { role: 'user', content: 'Thanks' },
    ]);
    expect(body.tools[0]).toMatchObject({
      type: 'function',
      function: { name: 'read_file', parameters: { type: 'object' } },
    });
  });

  it('build OpenAI Responses with input items, replayed reasoning and function outputs', () => {
    const { request, body } = parse('openai-responses', 'https://api.openai.com/v1', 'sk-test');
    expect(request.url).toBe('https://api.openai.com/v1/responses');
    expect(body).toMatchObject({ model: 'm-1', stream: true, store: false, instructions: 'You are minicode.' });
    expect(body.input.map((i: any) => i.type ?? i.role)).toEqual([
      'user',
      'reasoning',
      'assistant',
      'function_call',
      'function_call_output',
      'user',
    ]);
    expect(body.input[3]).toEqual({
      type: 'function_call',
      call_id: 'call_1',
      name: 'read_file',
      arguments: '{"path":"README.md"}',
    });
    expect(body.tools[0]).toMatchObject({ type: 'function', name: 'read_file', strict: false });
  });

  it('build Anthropic with alternating roles, thinking replayed first and tool results as user blocks', () => {
    const { request, body } = parse('anthropic', 'https://api.anthropic.com', 'sk-ant-test');
    expect(request.url).toBe('https://api.anthropic.com/v1/messages');
    expect(request.headers).toMatchObject({ 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' });
    expect(body).toMatchObject({
      model: 'm-1',
      max_tokens: 8192,
      stream: true,
      system: [{ type: 'text', text: 'You are minicode.', cache_control: { type: 'ephemeral' } }],
    });
    expect(body.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(body.messages[1].content.map((b: any) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect(body.messages[1].content[2]).toEqual({
      type: 'tool_use',
      id: 'call_1',
      name: 'read_file',
      input: { path: 'README.md' },
    });
    expect(body.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'call_1', content: '1\t# Demo' },
      { type: 'text', text: 'Thanks', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.tools[0]).toMatchObject({ name: 'read_file', input_schema: { type: 'object' } });
  });

  it('build Gemini with model/user contents, functionResponse by name and a cleaned schema', () => {
    const { request, body } = parse('gemini', 'https://generativelanguage.googleapis.com', 'g-key');
    expect(request.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/m-1:streamGenerateContent?alt=sse',
    );
    expect(request.headers['x-goog-api-key']).toBe('g-key');
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'You are minicode.' }] });
    expect(body.contents.map((c: any) => c.role)).toEqual(['user', 'model', 'user']);
    expect(body.contents[1].parts[1]).toEqual({
      functionCall: { name: 'read_file', args: { path: 'README.md' } },
      thoughtSignature: 'sig-g',
    });
    expect(body.contents[2].parts[0]).toEqual({
      functionResponse: { name: 'read_file', response: { content: '1\t# Demo' } },
    });
    expect(JSON.stringify(body.tools)).not.toContain('additionalProperties');
    expect(
      geminiSchema({
        type: 'object',
        additionalProperties: false,
        properties: { default: { type: 'string', default: 'x' } },
      }),
    ).toEqual({
      type: 'object',
      properties: { default: { type: 'string' } },
    });
  });

  it('build Ollama /api/chat with object arguments and tool_name on results', () => {
    const { request, body } = parse('ollama', 'http://127.0.0.1:11434');
    expect(request.url).toBe('http://127.0.0.1:11434/api/chat');
    expect(request.headers.authorization).toBeUndefined();
    expect(body).toMatchObject({ model: 'm-1', stream: true });
    expect(body.messages[2]).toEqual({
      role: 'assistant',
      content: 'Let me look.',
      tool_calls: [{ function: { name: 'read_file', arguments: { path: 'README.md' } } }],
    });
    expect(body.messages[3]).toEqual({ role: 'tool', tool_name: 'read_file', content: '1\t# Demo' });
  });
});

describe('a failed tool result', () => {
  const failed: Conversation = {
    ...conversation,
    messages: [
      ...conversation.messages.slice(0, 2),
      {
        role: 'tool',
        toolCallId: 'call_1',
        name: 'read_file',
        content: 'Error: no such file\nHint: check the path',
        isError: true,
      },
    ],
  };
  const bodyOf = (format: Parameters<typeof buildRequest>[0]) =>
    JSON.parse(buildRequest(format, failed, { model: 'm-1', baseUrl: 'http://127.0.0.1:9/v1' }).body) as Record<
      string,
      any
    >;

  it('reaches OpenAI chat, OpenAI Responses and Ollama with its one "Error:" prefix, not "Error: Error:"', () => {
    const sent = [
      bodyOf('openai-chat').messages.at(-1).content,
      bodyOf('openai-responses').input.find((i: { type: string }) => i.type === 'function_call_output').output,
      bodyOf('ollama').messages.at(-1).content,
    ];
    expect(sent).toEqual(Array(3).fill('Error: no such file\nHint: check the path'));
  });
});
