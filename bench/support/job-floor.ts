/**
 * The exec-cost job (bench/support/agent-provider.ts) done by the least a Node program needs, as
 * a floor for bench/exec-cost: no agent, no pipeline, no scrubbing, no checkpoints. It prints a
 * first JSONL line at once, asks the loopback provider (Anthropic Messages, streamed) with one
 * `bash` tool, runs the tool call it gets through `/bin/sh`, sends the result back, prints each
 * event it read as one JSONL line, and (unless `--no-store`) keeps every line in an LMDB file
 * with one synced commit, as a tool that stores its runs must. What this costs beyond `node -e 0`
 * is what any Node agent CLI pays for the job: the HTTP client, the child process, the native
 * addon and its commit.
 *
 * Usage: node job-floor.js PROMPT [--no-store]; ANTHROPIC_BASE_URL names the provider, HOME the
 * folder of the store (`HOME/.job-floor-store`).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';

type Json = Record<string, unknown>;

const prompt = process.argv[2] ?? '';
const withStore = !process.argv.includes('--no-store');
const base = new URL(process.env.ANTHROPIC_BASE_URL ?? 'http://127.0.0.1:1');
const lines: string[] = [];
const print = (event: Json): void => {
  const line = JSON.stringify(event);
  lines.push(line);
  process.stdout.write(`${line}\n`);
};

const TOOLS = [
  {
    name: 'bash',
    description: 'Run a shell command.',
    input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
];

/** One streamed request; the decoded SSE events, each printed as it is read. */
function ask(messages: Json[]): Promise<Json[]> {
  const body = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1024, stream: true, tools: TOOLS, messages });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        path: '/v1/messages',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': process.env.ANTHROPIC_API_KEY ?? '',
          'anthropic-version': '2023-06-01',
        },
      },
      (res) => {
        const events: Json[] = [];
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          buffer += text;
          let end = buffer.indexOf('\n\n');
          while (end >= 0) {
            for (const field of buffer.slice(0, end).split('\n')) {
              if (!field.startsWith('data:')) continue;
              const event = JSON.parse(field.slice(5)) as Json;
              events.push(event);
              print(event);
            }
            buffer = buffer.slice(end + 2);
            end = buffer.indexOf('\n\n');
          }
        });
        res.on('end', () => resolve(events));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The tool call of a turn's events, if it asked for one. */
function toolCall(events: Json[]): { id: string; command: string } | undefined {
  let id: string | undefined;
  let json = '';
  for (const e of events) {
    const block = e.content_block as Json | undefined;
    if (e.type === 'content_block_start' && block?.type === 'tool_use') id = String(block.id);
    const delta = e.delta as Json | undefined;
    if (e.type === 'content_block_delta' && delta?.type === 'input_json_delta') json += String(delta.partial_json);
  }
  return id ? { id, command: String((JSON.parse(json || '{}') as Json).command ?? '') } : undefined;
}

function sh(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.on('error', reject);
    child.on('close', () => resolve(Buffer.concat(out).toString('utf8')));
  });
}

print({ type: 'session.started', cwd: process.cwd() });
const messages: Json[] = [{ role: 'user', content: prompt }];
let events = await ask(messages);
for (let turn = 0; turn < 8; turn++) {
  const call = toolCall(events);
  if (!call) break;
  const output = await sh(call.command);
  print({ type: 'tool.finished', id: call.id, output });
  messages.push({
    role: 'assistant',
    content: [{ type: 'tool_use', id: call.id, name: 'bash', input: { command: call.command } }],
  });
  messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: output }] });
  events = await ask(messages);
}
if (withStore) {
  // lmdb's CommonJS build, as minicode's loader takes it (one file rather than its ES module tree).
  const { open } = createRequire(import.meta.url)('lmdb') as typeof import('lmdb');
  const db = open({ path: path.join(process.env.HOME ?? '.', '.job-floor-store') });
  const session = `${Date.now()}-${process.pid}`;
  for (let i = 0; i < lines.length; i++) db.put([session, i], lines[i]);
  await db.flushed;
  await db.close();
}
