/**
 * A scripted loopback model provider for bench/exec-cost: the same two-turn job for every agent
 * CLI (minicode, Codex, Claude Code), spoken in the wire format each one uses: Anthropic
 * Messages (`POST /v1/messages`, streamed or not) and OpenAI Responses (`POST /v1/responses`).
 *
 * The job: the first request that offers a shell tool gets one call of it (`cat README.md`);
 * a request that carries that tool's result gets the final answer. The tool is found by name in
 * the request (`bash`, `Bash`, `shell`, `shell_command`, `exec_command`) and its arguments are
 * shaped after the tool's own parameter schema, since each agent names and shapes its shell tool
 * differently. Requests without tools (titles, quota probes) get a one-word answer, token-count
 * probes a count; anything else is a 404. A scripted server rather than a cassette: the peers'
 * requests differ from ours and from one release to the next.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The shell command every agent is asked to run. */
export const JOB_COMMAND = 'cat README.md';
/** The prompt every agent gets. */
export const JOB_PROMPT = `Run the shell command \`${JOB_COMMAND}\` and tell me in one sentence what the README says.`;
/** The final answer the provider gives once the tool result is back. */
const ANSWER = 'The README describes a small sample project used by the minicode demo.';
const SHELL_NAMES = ['bash', 'Bash', 'shell_command', 'shell', 'exec_command'];

/** A running provider. */
export interface AgentProvider {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  /** Requests served, by path, for the bench's sanity check. */
  counts: Map<string, number>;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

interface ToolSpec {
  name: string;
  /** The JSON Schema of the tool's input (Anthropic `input_schema`, OpenAI `parameters`). */
  schema: Json | undefined;
}

function shellTool(tools: unknown): ToolSpec | undefined {
  if (!Array.isArray(tools)) return undefined;
  const specs = tools.map((t: Json) => ({
    name: String(t.name ?? ''),
    schema: (t.input_schema ?? t.parameters) as Json | undefined,
  }));
  for (const name of SHELL_NAMES) {
    const found = specs.find((s) => s.name === name);
    if (found) return found;
  }
  return undefined;
}

/** Arguments for the shell tool, shaped after its schema (`command` as a string or an argv array, or `cmd`). */
function shellArguments(tool: ToolSpec): Json {
  const properties = (tool.schema?.properties ?? {}) as Record<string, Json>;
  if ('cmd' in properties) return { cmd: JOB_COMMAND };
  if (properties.command?.type === 'array') return { command: ['bash', '-lc', JOB_COMMAND] };
  return { command: JOB_COMMAND, ...('description' in properties ? { description: 'Show the README' } : {}) };
}

const sse = (event: string, data: Json): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** True when any message of an Anthropic request carries a tool result. */
function anthropicHasToolResult(body: Json): boolean {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  return messages.some((m) => Array.isArray(m.content) && (m.content as Json[]).some((b) => b.type === 'tool_result'));
}

function anthropicReply(body: Json, res: http.ServerResponse, n: number): void {
  const tool = shellTool(body.tools);
  const useTool = tool !== undefined && !anthropicHasToolResult(body);
  const block = useTool
    ? { type: 'tool_use', id: `toolu_bench_${n}`, name: tool.name, input: shellArguments(tool) }
    : { type: 'text', text: tool ? ANSWER : 'Bench' };
  const usage = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = {
    id: `msg_bench_${n}`,
    type: 'message',
    role: 'assistant',
    model: String(body.model ?? 'claude-sonnet-4-5'),
    stop_sequence: null,
  };
  const stopReason = useTool ? 'tool_use' : 'end_turn';
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...message, content: [block], stop_reason: stopReason, usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const parts = [
    sse('message_start', {
      type: 'message_start',
      message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    }),
  ];
  if (block.type === 'tool_use') {
    parts.push(
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } }),
    );
    parts.push(
      sse('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      }),
    );
  } else {
    parts.push(
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    );
    parts.push(
      sse('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: block.text },
      }),
    );
  }
  parts.push(sse('content_block_stop', { type: 'content_block_stop', index: 0 }));
  parts.push(
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 20 },
    }),
  );
  parts.push(sse('message_stop', { type: 'message_stop' }));
  res.end(parts.join(''));
}

/** True when the Responses input carries a tool result. */
function responsesHasToolResult(body: Json): boolean {
  const input = Array.isArray(body.input) ? (body.input as Json[]) : [];
  return input.some((i) => typeof i.type === 'string' && i.type.endsWith('_call_output'));
}

function responsesReply(body: Json, res: http.ServerResponse, n: number): void {
  const tool = shellTool(body.tools);
  const useTool = tool !== undefined && !responsesHasToolResult(body);
  const model = String(body.model ?? 'gpt-5');
  const item = useTool
    ? {
        type: 'function_call',
        id: `fc_bench_${n}`,
        call_id: `call_bench_${n}`,
        name: tool.name,
        arguments: JSON.stringify(shellArguments(tool)),
        status: 'completed',
      }
    : {
        type: 'message',
        id: `msg_bench_${n}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: tool ? ANSWER : 'Bench', annotations: [] }],
      };
  const usage = {
    input_tokens: 100,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 20,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 120,
  };
  const response = {
    id: `resp_bench_${n}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model,
    status: 'in_progress',
    output: [] as Json[],
  };
  let seq = 0;
  const ev = (type: string, data: Json): string => sse(type, { type, sequence_number: seq++, ...data });
  const parts = [ev('response.created', { response }), ev('response.in_progress', { response })];
  if (item.type === 'function_call') {
    parts.push(
      ev('response.output_item.added', { output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } }),
    );
    parts.push(
      ev('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: item.arguments }),
    );
    parts.push(
      ev('response.function_call_arguments.done', { item_id: item.id, output_index: 0, arguments: item.arguments }),
    );
  } else {
    const text = (item.content as Json[])[0]!.text as string;
    parts.push(
      ev('response.output_item.added', { output_index: 0, item: { ...item, content: [], status: 'in_progress' } }),
    );
    parts.push(
      ev('response.content_part.added', {
        item_id: item.id,
        output_index: 0,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      }),
    );
    parts.push(ev('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: text }));
    parts.push(ev('response.output_text.done', { item_id: item.id, output_index: 0, content_index: 0, text }));
    parts.push(
      ev('response.content_part.done', {
        item_id: item.id,
        output_index: 0,
        content_index: 0,
        part: { type: 'output_text', text, annotations: [] },
      }),
    );
  }
  parts.push(ev('response.output_item.done', { output_index: 0, item }));
  parts.push(ev('response.completed', { response: { ...response, status: 'completed', output: [item], usage } }));
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(parts.join(''));
}

/** Start the provider on 127.0.0.1 (a free port). */
export async function startAgentProvider(): Promise<AgentProvider> {
  const counts = new Map<string, number>();
  let served = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const route = (req.url ?? '/').split('?')[0] as string;
      counts.set(`${req.method} ${route}`, (counts.get(`${req.method} ${route}`) ?? 0) + 1);
      let body: Json = {};
      try {
        body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json) : {};
      } catch {
        // A body that is not JSON gets the 404 below unless the route needs none.
      }
      served++;
      if (req.method === 'POST' && route.endsWith('/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"input_tokens":100}');
      } else if (req.method === 'POST' && route.endsWith('/messages')) anthropicReply(body, res, served);
      else if (req.method === 'POST' && route.endsWith('/responses')) responsesReply(body, res, served);
      else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"type":"not_found_error","message":"not served by the bench provider"}}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
