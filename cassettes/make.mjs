#!/usr/bin/env node
// Writes the hand-made cassettes in this folder: `node cassettes/make.mjs`.
// Each response body is written by us in the provider's real wire format (framing, event
// names, field names and terminators as the providers send them), not recorded from a live
// service.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FORMATS, writeCassette } from './wire-formats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

const write = (name, format, description, turns) => writeCassette(path.join(here, name), format, description, turns);

// Two-turn exchange per format: turn 1 calls read_file on README.md, turn 2 answers. ---------------

const callId = {
  anthropic: 'toolu_mc_read_1',
  'openai-chat': 'call_mc_read_1',
  'openai-responses': 'call_mc_read_1',
  gemini: 'gemini-call-1',
  ollama: 'ollama-call-1',
};
for (const format of Object.keys(FORMATS)) {
  write(`${format}-two-turn`, format, 'Hand-made two-turn exchange: read_file README.md, then a final answer.', [
    {
      text: "I'll read the README first.",
      calls: [{ id: callId[format], name: 'read_file', args: { path: 'README.md' } }],
    },
    {
      text: 'The README describes a tiny JavaScript project used by the minicode demo; src/greet.js has a bug that makes node test.js fail.',
    },
  ]);
}

// The demo: read, fix, test, submit, answer. Must agree with demo/sample-project. -----------------

const DEMO_EDIT = {
  path: 'src/greet.js',
  old_string: "return 'Hello, ' + nmae + '!';",
  new_string: "return 'Hello, ' + name + '!';",
};
write(
  'demo',
  'anthropic',
  'Hand-made demo run on demo/sample-project: read src/greet.js, fix the undefined variable, run node test.js, submit_result, answer.',
  [
    {
      text: 'Let me look at the greeting module.',
      calls: [{ id: 'toolu_demo_1', name: 'read_file', args: { path: 'src/greet.js' } }],
    },
    {
      text: "Line 8 uses `nmae`, which is not defined (eslint's no-undef). Fixing the typo.",
      calls: [{ id: 'toolu_demo_2', name: 'edit', args: DEMO_EDIT }],
    },
    { text: 'Now the tests.', calls: [{ id: 'toolu_demo_3', name: 'bash', args: { command: 'node test.js' } }] },
    {
      text: 'The tests pass. Recording the result.',
      calls: [
        {
          id: 'toolu_demo_4',
          name: 'submit_result',
          args: {
            summary: 'Fixed an undefined variable in src/greet.js; node test.js passes.',
            fixed: true,
            findings: [
              {
                category: 'lint',
                severity: 'error',
                summary: "no-undef: 'nmae' is not defined",
                evidence: { path: 'src/greet.js', line: 8 },
              },
            ],
          },
        },
      ],
    },
    {
      text: 'Fixed: `greet` referenced an undefined variable `nmae` instead of `name` (src/greet.js line 8). `node test.js` now passes.',
    },
  ],
);
console.log('cassettes written');
