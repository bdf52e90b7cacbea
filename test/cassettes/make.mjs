#!/usr/bin/env node
// Writes the hand-made test cassettes in this folder: `node test/cassettes/make.mjs`.
// Same generator as the shipped ones (../../cassettes/wire-formats.mjs): the bodies follow
// each provider's real wire format; ids, texts and token counts are invented.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FORMATS, MODELS, requestPath } from '../../cassettes/wire-formats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

function write(name, format, description, turns) {
  const dir = path.join(here, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const spec = FORMATS[format];
  const model = MODELS[format];
  fs.writeFileSync(path.join(dir, 'cassette.json'), `${JSON.stringify({ schema: 'minicode.cassette.v1', format, model, origin: 'hand-made', description }, null, 2)}\n`);
  turns.forEach((turn, i) => {
    const stem = String(i + 1).padStart(3, '0');
    const bodyFile = `${stem}.response.${spec.ext}`;
    fs.writeFileSync(path.join(dir, bodyFile), spec.body(turn, i + 1, model));
    const exchange = { request: { method: 'POST', path: requestPath(format, model) }, response: { status: 200, headers: { 'content-type': spec.contentType }, bodyFile } };
    fs.writeFileSync(path.join(dir, `${stem}.json`), `${JSON.stringify(exchange, null, 2)}\n`);
  });
}

// Gated tools without a TTY: git_commit and ask_user in one (parallel) turn, then an answer.
write('gated-tools', 'anthropic', 'Hand-made: git_commit and ask_user in parallel (both gated, denied without a TTY), then a final answer.', [
  {
    text: 'Committing, and asking which branch.',
    calls: [
      { id: 'toolu_gate_1', name: 'git_commit', args: { message: 'fix: greet uses name' } },
      { id: 'toolu_gate_2', name: 'ask_user', args: { question: 'Which branch should I use?' } },
    ],
  },
  { text: 'I could not commit or ask without a terminal; the change is left uncommitted.' },
]);

// The bash tool's environment: `env` prints it, credentials must not be there.
write('bash-env', 'openai-chat', 'Hand-made: bash `env` (credential variables must be absent), then a final answer.', [
  { calls: [{ id: 'call_env_1', name: 'bash', args: { command: 'env' } }] },
  { text: 'Printed the environment.' },
]);

// submit_result twice: the first result stands, the second call fails.
const FIRST = { verdict: 'pass', score: 0.93, notes: ['kept verbatim', { nested: [1, 2, 3] }], findings: [{ category: 'style', severity: 'low', summary: 'long line in src/greet.js' }] };
write('submit-twice', 'anthropic', 'Hand-made: submit_result, then submit_result again (fails: at most once), then a final answer.', [
  { text: 'Submitting.', calls: [{ id: 'toolu_sub_1', name: 'submit_result', args: FIRST }] },
  { text: 'Submitting again.', calls: [{ id: 'toolu_sub_2', name: 'submit_result', args: { verdict: 'fail' } }] },
  { text: 'Done.' },
]);

console.log('test cassettes written');
