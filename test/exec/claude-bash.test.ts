/**
 * Claude's `bash` tool keeps its shell between calls: the built CLI runs a loopback Anthropic
 * provider replaying `bash_20250124` calls (streams hand-made in the Messages wire format by
 * cassettes/wire-formats.mjs), each command a real bash under real bubblewrap (the default
 * workspace-write sandbox), and the next request body carries what the command printed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { sha256Of } from '../../lib/instructions/load.js';
import { contentTypeOf, execJson, ofType, tempDir, turnBody } from './helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** One bash call per turn (a command, or a restart), then a final answer. */
type Call = string | { restart: true };

/** A Claude run whose model makes `calls` one after another; what each call's result said, in order. */
async function claudeRun(
  cwd: string,
  calls: Call[],
  options: { home?: string; env?: NodeJS.ProcessEnv; args?: string[] } = {},
): Promise<{ results: string[]; records: Record<string, any>[] }> {
  const bodies = [
    ...calls.map((c, i) =>
      turnBody(
        'anthropic',
        {
          calls: [{ id: `toolu_${i + 1}`, name: 'bash', args: typeof c === 'string' ? { command: c } : c }],
        },
        i + 1,
      ),
    ),
    turnBody('anthropic', { text: 'done' }, calls.length + 1),
  ];
  const server = await startReplayServer(bodies.map((b) => streamOk(b, contentTypeOf('anthropic'))));
  servers.push(server);
  const flags = ['--provider', 'anthropic', '--model', 'claude-sonnet-4-5', '--base-url', server.origin];
  const run = await execJson([...flags, ...(options.args ?? [])], {
    cwd,
    ...(options.home ? { home: options.home } : {}),
    env: { ANTHROPIC_API_KEY: 'sk-ant-shell-fake-0123456789', ...options.env },
  });
  expect(run.code, run.stderr).toBe(0);
  const sent = server.requests.map((r) => JSON.parse(r.body));
  expect(sent).toHaveLength(calls.length + 1);
  // Request i+1 ends with the result of call i.
  const results = calls.map((_, i) => {
    const block = sent[i + 1].messages.at(-1).content.find((b: any) => b.tool_use_id === `toolu_${i + 1}`);
    const text = typeof block.content === 'string' ? block.content : block.content.map((p: any) => p.text).join('');
    return text.trimEnd();
  });
  return { results, records: run.records as Record<string, any>[] };
}

function workspace(): string {
  const dir = fs.realpathSync(tempDir('minicode-shell-'));
  fs.mkdirSync(path.join(dir, 'sub', 'deeper'), { recursive: true });
  return dir;
}

describe("Claude's bash keeps its shell between calls", () => {
  it('starts the next command in the folder the previous one cd-ed into, under the bubblewrap sandbox', async () => {
    const cwd = workspace();
    const { results, records } = await claudeRun(cwd, ['cd sub', 'pwd', 'cd deeper && touch here.txt', 'pwd']);
    expect(ofType(records, 'session.started')[0]!.payload.sandbox).toBe('workspace-write');
    expect(results[1]).toBe(path.join(cwd, 'sub'));
    expect(results[3]).toBe(path.join(cwd, 'sub', 'deeper'));
    expect(fs.existsSync(path.join(cwd, 'sub', 'deeper', 'here.txt'))).toBe(true);
    // Events still report our bash with the model's command.
    expect(ofType(records, 'tool.started').map((e) => e.payload.input)).toEqual([
      { command: 'cd sub' },
      { command: 'pwd' },
      { command: 'cd deeper && touch here.txt' },
      { command: 'pwd' },
    ]);
  });

  it('keeps exported variables and unsets for the next command, and not a variable that is only set', async () => {
    const cwd = workspace();
    const { results } = await claudeRun(
      cwd,
      [
        'export X=1 GREETING="hello world"; LOCAL_ONLY=2',
        'echo "x=$X greeting=$GREETING local=${LOCAL_ONLY:-none}"',
        'unset X; export GREETING="$GREETING again"',
        'echo "x=${X:-unset} greeting=$GREETING"',
      ],
      { env: { X: 'from-minicode' } },
    );
    expect(results[1]).toBe('x=1 greeting=hello world local=none');
    expect(results[3]).toBe('x=unset greeting=hello world again');
  });

  it('goes back to the workspace and the initial environment on restart', async () => {
    const cwd = workspace();
    const { results, records } = await claudeRun(cwd, [
      'cd sub && export X=1',
      { restart: true },
      'pwd; echo "x=${X:-unset}"',
    ]);
    expect(results[1]).toMatch(/restarted/);
    expect(results[2]).toBe(`${cwd}\nx=unset`);
    expect(ofType(records, 'tool.completed').map((e) => e.payload.summary)).toContain('bash restarted');
  });

  it('keeps exit codes, and the state of a command that exits or fails under set -e', async () => {
    const cwd = workspace();
    const { results, records } = await claudeRun(cwd, [
      'cd sub; export A=1; exit 3',
      'set -e; cd deeper; false; echo unreachable',
      'pwd; echo "a=$A"',
    ]);
    expect(ofType(records, 'tool.failed').map((e) => e.payload.message)).toEqual([
      'command exited with code 3',
      'command exited with code 1',
    ]);
    expect(results[1]).not.toContain('unreachable');
    expect(results[2]).toBe(`${path.join(cwd, 'sub', 'deeper')}\na=1`);
  });

  it('never keeps a working directory outside the workspace, and says so', async () => {
    const cwd = workspace();
    const { results } = await claudeRun(cwd, [
      'cd sub && cd ../..',
      'pwd',
      'ln -s / sub/root-link',
      'cd sub/root-link/etc',
      'pwd',
    ]);
    expect(results[0]).toContain(`not a folder inside the workspace: the next command starts in ${cwd}`);
    expect(results[1]).toBe(cwd);
    // A link inside the workspace that leads out of it is followed before the check.
    expect(results[3]).toContain('not a folder inside the workspace');
    expect(results[4]).toBe(cwd);
  });

  it('never carries a credential variable to the next command, and names it', async () => {
    const cwd = workspace();
    const { results } = await claudeRun(cwd, [
      'export DEPLOY_PASSWORD="correct horse battery staple" PLAIN=ok',
      'echo "pw=${DEPLOY_PASSWORD:-none} plain=$PLAIN"',
    ]);
    expect(results[0]).toContain('[shell] not kept for the next command: DEPLOY_PASSWORD');
    expect(results[1]).toBe('pw=none plain=ok');
  });

  it('returns while a background process the command started would still run: the state pipe is not left to it', async () => {
    const cwd = workspace();
    // Were the report pipe inherited by the sleep, the call would wait for it (past the test's deadline).
    const { results } = await claudeRun(cwd, ['cd sub && (sleep 600 > /dev/null 2>&1 &) && echo started', 'pwd']);
    expect(results[0]).toBe('started');
    expect(results[1]).toBe(path.join(cwd, 'sub'));
  });

  it('keeps the shell behind the network bridge of a host allowlist, and under the read-only sandbox', async () => {
    const home = tempDir('minicode-home-');
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({ sandbox: { network: { allow: ['registry.npmjs.org'] } } }),
    );
    const bridged = workspace();
    const viaBridge = await claudeRun(bridged, ['cd sub && export X=1', 'echo "$PWD x=$X proxy=${HTTPS_PROXY:+set}"'], {
      home,
    });
    expect(viaBridge.results[1]).toBe(`${path.join(bridged, 'sub')} x=1 proxy=set`);

    const readOnly = workspace();
    const { results, records } = await claudeRun(readOnly, ['cd sub/deeper', 'pwd'], {
      args: ['--sandbox', 'read-only', '--approval', 'auto'],
    });
    expect(ofType(records, 'session.started')[0]!.payload.sandbox).toBe('read-only');
    expect(results[1]).toBe(path.join(readOnly, 'sub', 'deeper'));
  });

  it('gives a child session a shell of its own, the same tool shapes and the note for the tools it is offered', async () => {
    const cwd = workspace();
    const task = (id: string, agent: string) => ({
      id,
      name: 'task',
      args: { description: `${agent} helper`, prompt: `work as ${agent}`, subagent_type: agent },
    });
    const bash = (id: string, command: string) => ({ id, name: 'bash', args: { command } });
    // Children run one at a time here, so the requests come in this order.
    const script = [
      { calls: [task('toolu_p1', 'general')] }, // parent
      { calls: [bash('toolu_c1', 'cd sub && export Y=2')] }, // general child
      { calls: [bash('toolu_c2', 'echo "$PWD y=$Y"')] },
      { text: 'child done' },
      { calls: [bash('toolu_p2', 'echo "$PWD y=${Y:-unset}"')] }, // parent again: its own shell
      { calls: [task('toolu_p3', 'explore')] },
      { text: 'explored' }, // explore child
      { text: 'done' },
    ];
    const server = await startReplayServer(
      script.map((t, i) => streamOk(turnBody('anthropic', t, i + 1), contentTypeOf('anthropic'))),
    );
    servers.push(server);
    const run = await execJson(
      ['--provider', 'anthropic', '--model', 'claude-sonnet-4-5', '--base-url', server.origin],
      {
        cwd,
        env: { ANTHROPIC_API_KEY: 'sk-ant-shell-fake-0123456789' },
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const sent = server.requests.map((r) => JSON.parse(r.body));
    expect(sent).toHaveLength(script.length);
    const systemOf = (body: any) => body.system.map((b: any) => b.text).join('');
    const toolsOf = (body: any) => body.tools.map((t: any) => (t.type ? `${t.name}:${t.type}` : t.name));
    const resultOf = (body: any, id: string) =>
      body.messages
        .at(-1)
        .content.find((b: any) => b.tool_use_id === id)
        .content.trimEnd();
    const [parent, general, , childLast, , parentAgain, explore] = sent;
    expect(systemOf(general)).toContain('# You are a sub-agent');
    // The general child is offered what its parent is, in the same shapes, with the same note.
    expect(toolsOf(general)).toEqual(toolsOf(parent).filter((n: string) => n !== 'task'));
    expect(toolsOf(general)).toEqual(
      expect.arrayContaining(['str_replace_based_edit_tool:text_editor_20250728', 'bash:bash_20250124']),
    );
    const note = systemOf(parent).slice(systemOf(parent).indexOf('# Tools in this run'));
    expect(note).toContain('str_replace_based_edit_tool stands in for');
    expect(systemOf(general).endsWith(note)).toBe(true);
    // Its shell is its own: its cd and export hold for its next command, not for the parent's.
    expect(resultOf(childLast, 'toolu_c2')).toBe(`${path.join(cwd, 'sub')} y=2`);
    expect(resultOf(parentAgain, 'toolu_p2')).toBe(`${cwd} y=unset`);
    // explore has read-only tools: neither the editor nor bash, and a note that names neither.
    expect(toolsOf(explore).sort()).toEqual([
      'glob',
      'grep',
      'read_file',
      'read_image',
      'submit_result',
      'update_plan',
    ]);
    expect(systemOf(explore)).not.toContain('# Tools in this run');
    // Each session records the digest of the system prompt it sent, its note included.
    const digests = ofType(run.records, 'session.started').map((e) => e.payload.systemPromptDigest);
    expect(digests).toEqual([parent, general, explore].map((b) => sha256Of(systemOf(b))));
  });
});
