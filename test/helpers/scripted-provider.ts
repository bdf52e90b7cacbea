/**
 * A scripted OpenAI-compatible provider on a loopback HTTP server, for tests that drive
 * `runAgent` through its real request, retry and stream-decoding path. Each request is answered
 * by the test's `answer` function: a reply written as OpenAI chat completion SSE (hand-made, in
 * the wire format the openai-chat decoder reads), an HTTP error in OpenAI's error shape, or a
 * stream that hangs after its first chunk until the client goes away, or a connection dropped
 * before any answer (`drop`: the client sees a network error).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { providerSettings, type ProviderSettings } from '../../lib/agent/provider-settings.js';

/** A model reply: its text, tool calls and the usage the provider reports. */
export interface Reply {
  text: string;
  toolCalls?: { id: string; name: string; argumentsText: string }[];
  usage?: { inputTokens: number; outputTokens: number };
}

/** An HTTP error answer in OpenAI's error shape (`retryAfterMs` becomes a `retry-after-ms` header). */
export interface ErrorAnswer {
  status: number;
  code: string;
  message: string;
  retryAfterMs?: number;
}

/** A stream that sends `text` as the reply's first delta, then nothing more until the client goes away. */
export interface HangAnswer {
  hangAfter: string;
}

/** What a request is answered with; `hang` sends the headers and one empty chunk, then nothing. */
export type Answer = Reply | ErrorAnswer | HangAnswer | 'hang' | 'drop';

/** One request as the server saw it. */
export interface SeenRequest {
  /** 1-based, in arrival order. */
  n: number;
  /** The parsed JSON body (`messages`, `tools`, ...). */
  body: { messages: { role: string; content?: unknown }[] } & Record<string, unknown>;
  /** The body's length in characters. */
  chars: number;
}

/** A running scripted provider. */
export interface ScriptedProvider {
  /** Settings that point the loop at this server (openai-chat, gpt-4.1: a priced model). */
  settings: ProviderSettings;
  requests: SeenRequest[];
  /** Requests whose client went away before the answer ended (an aborted fetch). */
  readonly abandoned: number;
  close(): Promise<void>;
}

const MODEL = 'gpt-4.1';

/** The SSE body of `reply`, in OpenAI chat completion chunks. */
function sseOf(reply: Reply, n: number): string {
  const id = `chatcmpl-scripted-${n}`;
  const chunk = (delta: object, finish: string | null = null): string =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1767225600, model: MODEL, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  let out = chunk({ role: 'assistant', content: reply.text });
  (reply.toolCalls ?? []).forEach((call, index) => {
    out += chunk({
      tool_calls: [
        { index, id: call.id, type: 'function', function: { name: call.name, arguments: call.argumentsText } },
      ],
    });
  });
  out += chunk({}, reply.toolCalls?.length ? 'tool_calls' : 'stop');
  if (reply.usage) {
    const { inputTokens, outputTokens } = reply.usage;
    out += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1767225600, model: MODEL, choices: [], usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens } })}\n\n`;
  }
  return `${out}data: [DONE]\n\n`;
}

/** Start the server; `answer` is called once per request (it may wait, e.g. for the test to release it). */
export async function startScriptedProvider(
  answer: (request: SeenRequest) => Answer | Promise<Answer>,
): Promise<ScriptedProvider> {
  const requests: SeenRequest[] = [];
  let abandoned = 0;
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      const seen: SeenRequest = {
        n: requests.length + 1,
        body: JSON.parse(text) as SeenRequest['body'],
        chars: text.length,
      };
      requests.push(seen);
      let ended = false;
      res.on('close', () => {
        if (!ended) abandoned++;
      });
      const end = (body?: string): void => {
        ended = true;
        res.end(body);
      };
      void Promise.resolve(answer(seen)).then((a) => {
        if (res.destroyed) return;
        if (a === 'drop') {
          ended = true;
          res.socket?.destroy();
          return;
        }
        if (a === 'hang' || 'hangAfter' in a) {
          const content = a === 'hang' ? '' : a.hangAfter;
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(
            `data: ${JSON.stringify({ id: 'chatcmpl-hang', object: 'chat.completion.chunk', created: 1767225600, model: MODEL, choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: null }] })}\n\n`,
          );
          return;
        }
        if ('status' in a) {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (a.retryAfterMs !== undefined) headers['retry-after-ms'] = String(a.retryAfterMs);
          res.writeHead(a.status, headers);
          end(JSON.stringify({ error: { message: a.message, type: a.code, code: a.code } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        end(sseOf(a, seen.n));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    settings: providerSettings({
      format: 'openai-chat',
      model: MODEL,
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: 'sk-test-scripted-0123456789',
    }),
    requests,
    get abandoned() {
      return abandoned;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
