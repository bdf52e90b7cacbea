/**
 * Shared by the escape suite: whether real bubblewrap works here (the suite is skipped, saying
 * so, where it does not), and one `exec --json` run whose scripted model calls `bash` with
 * given commands, over the loopback replay server.
 */
import { findSandboxBackend } from '../../lib/sandbox/backend.js';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { contentTypeOf, execJson, ofType, turnBody, type ExecRun } from '../exec/helpers.js';

/** True when `bwrap` runs here with the namespaces the sandbox uses. */
export const HAVE_BWRAP = findSandboxBackend()?.kind === 'bwrap';

/** Say once why the sandbox suite is skipped. */
export function bwrapSkipNote(file: string): void {
  if (!HAVE_BWRAP) console.warn(`${file}: skipped, bubblewrap (bwrap) does not work here (apt-get install bubblewrap)`);
}

const servers: ReplayServer[] = [];

/** Close the replay servers the runs started. */
export async function closeServers(): Promise<void> {
  await Promise.all(servers.splice(0).map((s) => s.close()));
}

/** What one scripted bash call gave: its terminal event type and the output the model saw. */
export interface BashResult {
  type: string;
  output: string;
  sandbox: string | undefined;
}

/**
 * `minicode exec --json` in `cwd` whose model runs each of `commands` with the bash tool (in
 * one turn, in order of the calls), then answers "done". `args` are extra flags (`--sandbox`).
 */
export async function execBash(
  commands: string[],
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ run: ExecRun; results: BashResult[] }> {
  const calls = commands.map((command, i) => ({ id: `call_${i}`, name: 'bash', args: { command } }));
  const server = await startReplayServer([
    streamOk(turnBody('openai-chat', { calls }, 1), contentTypeOf('openai-chat')),
    streamOk(turnBody('openai-chat', { text: 'done' }, 2), contentTypeOf('openai-chat')),
  ]);
  servers.push(server);
  const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini', ...args], {
    cwd,
    env: { OPENAI_BASE_URL: `${server.origin}/v1`, OPENAI_API_KEY: 'sk-test', ...env },
  });
  const terminals = [...ofType(run.records, 'tool.completed'), ...ofType(run.records, 'tool.failed')];
  const started = ofType(run.records, 'tool.started');
  const results = calls.map((call) => {
    const end = terminals.find((e) => e.correlationId === call.id || e.payload.toolCallId === call.id);
    const start = started.find((e) => e.correlationId === call.id || e.payload.toolCallId === call.id);
    return {
      type: String(end?.type),
      output: String(end?.payload.output ?? end?.payload.message ?? ''),
      sandbox: start?.payload.sandbox as string | undefined,
    };
  });
  return { run, results };
}
