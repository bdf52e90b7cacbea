#!/usr/bin/env node
// Writes the hand-made test cassettes in this folder: `node test/cassettes/make.mjs`.
// Same generator as the shipped ones (../../cassettes/wire-formats.mjs): the bodies follow
// each provider's real wire format; ids, texts and token counts are invented.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeCassette } from '../../cassettes/wire-formats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

const write = (name, format, description, turns) => writeCassette(path.join(here, name), format, description, turns);

// Gated tools without a TTY: git_commit and ask_user in one (parallel) turn, then an answer.
write(
  'gated-tools',
  'anthropic',
  'Hand-made: git_commit and ask_user in parallel (both gated, denied without a TTY), then a final answer.',
  [
    {
      text: 'Committing, and asking which branch.',
      calls: [
        { id: 'toolu_gate_1', name: 'git_commit', args: { message: 'fix: greet uses name' } },
        { id: 'toolu_gate_2', name: 'ask_user', args: { question: 'Which branch should I use?' } },
      ],
    },
    { text: 'I could not commit or ask without a terminal; the change is left uncommitted.' },
  ],
);

// The bash tool's environment: `env` prints it, credentials must not be there.
write('bash-env', 'openai-chat', 'Hand-made: bash `env` (credential variables must be absent), then a final answer.', [
  { calls: [{ id: 'call_env_1', name: 'bash', args: { command: 'env' } }] },
  { text: 'Printed the environment.' },
]);

// submit_result twice: the first result stands, the second call fails.
const FIRST = {
  verdict: 'pass',
  score: 0.93,
  notes: ['kept verbatim', { nested: [1, 2, 3] }],
  findings: [{ category: 'style', severity: 'low', summary: 'long line in src/greet.js' }],
};
write(
  'submit-twice',
  'anthropic',
  'Hand-made: submit_result, then submit_result again (fails: at most once), then a final answer.',
  [
    { text: 'Submitting.', calls: [{ id: 'toolu_sub_1', name: 'submit_result', args: FIRST }] },
    { text: 'Submitting again.', calls: [{ id: 'toolu_sub_2', name: 'submit_result', args: { verdict: 'fail' } }] },
    { text: 'Done.' },
  ],
);

// Checkpoints: changes made through bash only (sed -i, rm, new files, a binary file, a
// symlink), one call per step so each call's file.changed is its own.
write(
  'checkpoint-bash',
  'anthropic',
  'Hand-made: bash sed -i, then bash rm + new files (text, binary, symlink), then a final answer.',
  [
    {
      text: 'Editing in place.',
      calls: [{ id: 'toolu_ck_1', name: 'bash', args: { command: "sed -i 's/one/ONE/' notes.txt" } }],
    },
    {
      text: 'Removing and creating.',
      calls: [
        {
          id: 'toolu_ck_2',
          name: 'bash',
          args: {
            command:
              "rm gone.txt && printf 'fresh\\n' > fresh.txt && mkdir -p deep/dir && printf '\\x00\\x01\\xff\\x00' > deep/dir/blob.bin && printf '\\x89PNG\\x00\\x02' > logo.png && ln -s notes.txt link-to-notes",
          },
        },
      ],
    },
    { text: 'Done: edited notes.txt, removed gone.txt, added files.' },
  ],
);

// A second session in the same workspace: one more change to notes.txt.
write('checkpoint-second', 'anthropic', 'Hand-made: bash appends a line to notes.txt, then a final answer.', [
  { calls: [{ id: 'toolu_ck2_1', name: 'bash', args: { command: "printf 'second session\\n' >> notes.txt" } }] },
  { text: 'Appended a line.' },
]);

// A crash after the checkpoint: the command writes a file, then kills minicode itself.
write(
  'checkpoint-crash',
  'anthropic',
  'Hand-made: bash writes a file and kills its parent (minicode) with SIGKILL; the answer is never requested.',
  [
    {
      calls: [
        {
          id: 'toolu_crash_1',
          name: 'bash',
          args: { command: "printf 'half\\n' > half-done.txt && sed -i 's/one/CRASH/' notes.txt && kill -9 $PPID" },
        },
      ],
    },
    { text: 'never reached' },
  ],
);

// The plan tool: created, then updated, then an answer.
write('plan', 'anthropic', 'Hand-made: update_plan twice (created, then updated), then a final answer.', [
  {
    text: 'Planning.',
    calls: [
      {
        id: 'toolu_plan_1',
        name: 'update_plan',
        args: {
          explanation: 'Two steps',
          plan: [
            { step: 'Read the README', status: 'in_progress' },
            { step: 'Summarise it', status: 'pending' },
          ],
        },
      },
    ],
  },
  {
    calls: [
      {
        id: 'toolu_plan_2',
        name: 'update_plan',
        args: {
          plan: [
            { step: 'Read the README', status: 'completed' },
            { step: 'Summarise it', status: 'in_progress' },
          ],
        },
      },
    ],
  },
  { text: 'The README describes a sample project.' },
]);

// MCP tools (test/mcp/exec.test.ts, with test/mcp/servers/hostile.mjs configured as `hostile`):
// five calls in one turn, then an answer. Without an allowlist all are denied (no TTY).
write(
  'mcp-tools',
  'anthropic',
  'Hand-made: five MCP tool calls of the hostile test server in parallel (echo, env, big, image, fail), then a final answer.',
  [
    {
      text: 'Using the MCP tools.',
      calls: [
        { id: 'toolu_mcp_1', name: 'mcp__hostile__echo', args: { text: 'hello over MCP' } },
        { id: 'toolu_mcp_2', name: 'mcp__hostile__env', args: { name: 'GITHUB_TOKEN' } },
        { id: 'toolu_mcp_3', name: 'mcp__hostile__big', args: {} },
        { id: 'toolu_mcp_4', name: 'mcp__hostile__image', args: {} },
        { id: 'toolu_mcp_5', name: 'mcp__hostile__fail', args: {} },
      ],
    },
    { text: 'Used the MCP tools.' },
  ],
);

// An MCP call that never answers: the run is interrupted (SIGINT) while it waits.
write(
  'mcp-hang',
  'anthropic',
  'Hand-made: one MCP call that never answers (hostile `hang`), then an answer the run never reaches.',
  [
    { text: 'Waiting on the server.', calls: [{ id: 'toolu_hang_1', name: 'mcp__hostile__hang', args: {} }] },
    { text: 'Never reached.' },
  ],
);

// An ACP client's MCP server (`ide`, the hostile test server): one call, allowed through
// session/request_permission, then an answer; a second prompt's call the client denies.
write(
  'acp-mcp',
  'anthropic',
  'Hand-made: an MCP tool of the ACP client-provided server `ide` (allowed), an answer; then the same tool again (denied), an answer.',
  [
    {
      text: 'Asking the IDE server.',
      calls: [{ id: 'toolu_acpmcp_1', name: 'mcp__ide__echo', args: { text: 'from acp' } }],
    },
    { text: 'The IDE server echoed.' },
    { text: 'Once more.', calls: [{ id: 'toolu_acpmcp_2', name: 'mcp__ide__echo', args: { text: 'again' } }] },
    { text: 'It was denied.' },
  ],
);

console.log('test cassettes written');
