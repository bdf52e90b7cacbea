#!/usr/bin/env node
/**
 * The worked example of docs/batch.md § Evaluation, runnable with no API key and no network:
 * an A/B of two system prompts over 20 arithmetic tasks, 3 epochs each, with a verify command,
 * an `includes` scorer and a model-graded scorer, then `minicode batch compare`.
 *
 * The model is a stand-in on a loopback HTTP server speaking OpenAI chat completions (the real
 * HTTP, decoding, tool, store and grading paths of minicode run against it): it writes its
 * answer to answer.txt with a tool call, then says it. It gets a task right with probability 0.6
 * under prompt A and 0.85 under prompt B (prompt B asks it to check its arithmetic), drawn from
 * a seed per (task, epoch, prompt), and spends more output tokens and time under B. The grader
 * (recognised by minicode's grader system prompt) scores 9 for a right answer and 2 for a wrong
 * one. The figures are the stand-in's, not any real model's.
 *
 * Usage: npm run build && node demo/eval/ab.mjs [WORKDIR]
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli/main.js');
const work = path.resolve(process.argv[2] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-eval-ab-')));
fs.mkdirSync(work, { recursive: true });

const CAREFUL = 'Check your arithmetic twice before you answer.';
const PROMPTS = {
  A: 'You are a calculator. Write the answer to answer.txt, then reply with the number only.',
  B: `You are a calculator. ${CAREFUL} Write the answer to answer.txt, then reply with the number only.`,
};

/** A number in [0, 1) from a text: the stand-in's dice, the same for the same (task, epoch, prompt). */
function dice(text) {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 2 ** 32;
}

const tasks = Array.from({ length: 20 }, (_, i) => {
  const x = 12 + ((i * 7) % 37);
  const y = 3 + ((i * 5) % 19);
  return { id: `mul-${String(i + 1).padStart(2, '0')}`, x, y, answer: x * y };
});

function textOf(content) {
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
}

function sse(reply, n) {
  const id = `chatcmpl-standin-${n}`;
  const chunk = (delta, finish = null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1767225600, model: 'gpt-4.1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  let out = chunk({ role: 'assistant', content: reply.text });
  if (reply.call)
    out += chunk({
      tool_calls: [
        {
          index: 0,
          id: `call_${n}`,
          type: 'function',
          function: { name: reply.call.name, arguments: JSON.stringify(reply.call.args) },
        },
      ],
    });
  out += chunk({}, reply.call ? 'tool_calls' : 'stop');
  out += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1767225600, model: 'gpt-4.1', choices: [], usage: { prompt_tokens: reply.input, completion_tokens: reply.output, total_tokens: reply.input + reply.output } })}\n\n`;
  return `${out}data: [DONE]\n\n`;
}

const attempts = new Map();

/** The stand-in's answer to one request. */
function answer(body) {
  const system = textOf(body.messages[0]?.content);
  const user = textOf(body.messages.find((m) => m.role === 'user')?.content);
  const task = tasks.find((t) => user.includes(`What is ${t.x} x ${t.y}?`));
  if (!task) return { text: 'I cannot tell which task this is.', input: 50, output: 10, delayMs: 5 };
  if (system.includes('You grade the work of an AI agent')) {
    const given = /<answer>\n(-?\d+)\n<\/answer>/.exec(user)?.[1];
    const right = Number(given) === task.answer;
    const verdict = right
      ? { score: 9, reasoning: `The answer ${given} is the product asked for.` }
      : { score: 2, reasoning: `The answer ${given ?? '(none)'} is not ${task.x} x ${task.y}.` };
    return { text: JSON.stringify(verdict), input: 400, output: 30, delayMs: 5 };
  }
  const careful = system.includes(CAREFUL);
  const last = body.messages.at(-1);
  if (last?.role === 'tool') {
    // The second step says what the first one wrote.
    const args = JSON.parse(body.messages.at(-2)?.tool_calls?.[0]?.function?.arguments ?? '{}');
    const written = /-?\d+/.exec(args.content ?? args.input?.split('\n+')[1] ?? '')?.[0] ?? '?';
    return { text: written, input: 260, output: careful ? 40 : 12, delayMs: careful ? 40 : 15 };
  }
  // The n-th first step of a task under a prompt is its n-th attempt (epochs run one after another).
  const key = `${task.id}/${careful ? 'B' : 'A'}`;
  const attempt = (attempts.get(key) ?? 0) + 1;
  attempts.set(key, attempt);
  const right = dice(`${key}/${attempt}`) < (careful ? 0.85 : 0.6);
  const value = right ? task.answer : task.answer + 10;
  const names = (body.tools ?? []).map((t) => t.function?.name);
  const call = names.includes('write_file')
    ? { name: 'write_file', args: { path: 'answer.txt', content: `${value}\n` } }
    : { name: 'apply_patch', args: { input: `*** Begin Patch\n*** Add File: answer.txt\n+${value}\n*** End Patch\n` } };
  return { text: '', call, input: 220, output: careful ? 60 : 20, delayMs: careful ? 60 : 25 };
}

let requests = 0;
const server = http.createServer((req, res) => {
  const parts = [];
  req.on('data', (b) => parts.push(b));
  req.on('end', () => {
    const reply = answer(JSON.parse(Buffer.concat(parts).toString('utf8')));
    const n = ++requests;
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse(reply, n));
    }, reply.delayMs);
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}/v1`;

// The project each line works on (copied per line by --isolate copy).
const project = path.join(work, 'project');
fs.mkdirSync(project, { recursive: true });
fs.writeFileSync(path.join(project, 'README.md'), 'Answers go to answer.txt.\n');

const rubric = 'The answer is the exact product of the two numbers in the task, as a plain number.';
for (const variant of ['A', 'B']) {
  const lines = tasks.map((t) =>
    JSON.stringify({
      id: t.id,
      prompt: `What is ${t.x} x ${t.y}?`,
      cwd: 'project',
      system: PROMPTS[variant],
      verify: `grep -qx ${t.answer} answer.txt`,
      expect: { includes: String(t.answer), model: { rubric } },
    }),
  );
  fs.writeFileSync(path.join(work, `${variant}.jsonl`), `${lines.join('\n')}\n`);
}

/** Run the CLI (asynchronously: the stand-in answers from this process's event loop). */
function minicode(args) {
  const child = spawn(process.execPath, [cli, ...args], {
    cwd: work,
    env: {
      ...process.env,
      MINICODE_HOME: path.join(work, 'home'),
      OPENAI_API_KEY: 'sk-stand-in-not-a-real-key-0123',
      NO_COLOR: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = [];
  const err = [];
  child.stdout.on('data', (b) => out.push(b));
  child.stderr.on('data', (b) => err.push(b));
  return new Promise((resolve) =>
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    ),
  );
}

const common = ['--provider', 'openai-chat', '--model', 'gpt-4.1', '--base-url', baseUrl, '--sandbox', 'off'];
for (const variant of ['A', 'B']) {
  const args = [
    'batch',
    `${variant}.jsonl`,
    '--out',
    `out-${variant}`,
    '--epochs',
    '3',
    '--isolate',
    'copy',
    '--verify-soft',
    '--store',
    'store',
    ...common,
  ];
  process.stdout.write(`$ minicode ${args.slice(0, 11).join(' ')} ...\n`);
  const run = await minicode(args);
  process.stdout.write(
    run.stderr
      .split('\n')
      .filter((l) => l.startsWith('minicode batch:'))
      .join('\n') + '\n',
  );
}
for (const args of [
  ['batch', 'compare', 'out-A', 'out-B'],
  ['batch', 'report', 'out-B'],
]) {
  process.stdout.write(`\n$ minicode ${args.join(' ')}\n`);
  const run = await minicode(args);
  process.stdout.write(run.stdout);
}
server.close();
process.stdout.write(`\nworkdir: ${work} (${requests} requests answered by the stand-in)\n`);
