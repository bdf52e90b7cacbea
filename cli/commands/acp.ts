import type { Command } from 'commander';
import { addChildLimitFlags, addSandboxFlags } from './exec.js';
import type { AgentPort, AgentPortModule, AgentPortOptions } from '../../lib/acp/agent-port.js';
import { definedOnly } from '../../lib/defined-only.js';
import { MinicodeError } from '../../lib/errors.js';
import { failureLine } from '../../lib/failure-line.js';
import { nonNegativeInt, positiveInt } from '../../lib/flag-values.js';

/** The flags `minicode acp` takes are exactly the port options (the provider flags of `exec`), less the environment. */
type AcpFlags = Omit<AgentPortOptions, 'env'>;

/**
 * `minicode acp`: an Agent Client Protocol (v1) server on stdin/stdout. Takes the provider flags
 * of `exec`. stdout carries only ACP messages; everything else goes to stderr.
 */
export function registerAcp(program: Command): void {
  const command = program
    .command('acp')
    .description('serve the Agent Client Protocol (v1) over stdio, for IDEs')
    .option('--provider <name>', 'provider to use (as for exec)')
    .option('--model <id>', 'model of new sessions')
    .option('--base-url <url>', 'provider base URL')
    .option('--cassette <dir>', 'replay recorded provider responses over loopback')
    .option('--store <dir>', 'session store directory (LMDB)')
    .option('--allow-local-config', 'trust .minicode/config.json and .mcp.json in the working directory')
    .option(
      '--no-checkpoint',
      'take no workspace checkpoint of the prompt turns (they cannot be undone with minicode undo)',
    );
  addChildLimitFlags(addSandboxFlags(command)).action(async (flags: AcpFlags) => {
    // A bad value is a usage error now, not an error answering the first prompt.
    try {
      nonNegativeInt(flags.maxChildDepth, '--max-child-depth');
      positiveInt(flags.maxChildren, '--max-children');
    } catch (error) {
      if (!(error instanceof MinicodeError)) throw error;
      process.stderr.write(failureLine(error));
      process.exitCode = error.exitCode;
      return;
    }
    // Nothing but ACP may reach stdout: a stray console.log from a dependency would corrupt it.
    console.log = console.error;
    console.info = console.error;
    console.debug = console.error;
    const port = await loadPort(portOptions(flags));
    if (!port) {
      process.stderr.write(
        'minicode acp: no agent is available: lib/agent/acp-port.js is not built into this installation ' +
          '(set MINICODE_ACP_SCRIPTED=1 for the scripted test agent)\n',
      );
      process.exitCode = 1;
      return;
    }
    const [{ createAcpServer }, { stdioTransport }, { VERSION }] = await Promise.all([
      import('../../lib/acp/server.js'),
      import('../../lib/acp/transport.js'),
      import('../../lib/version.js'),
    ]);
    const server = createAcpServer(
      definedOnly({ port, agentInfo: { name: 'minicode', version: VERSION }, model: flags.model }),
      stdioTransport(),
    );
    const connection = server.connect();
    // A client that leaves by signalling (an editor stopping its agent) does not close the input
    // first: the turns in flight are cancelled, and the sessions end (SessionEnd hooks,
    // `session.ended`) before the exit. A second signal exits at once.
    let leaving = false;
    const onSignal = (): void => {
      if (leaving) process.exit(130);
      leaving = true;
      void server.shutdown().finally(() => process.exit(130));
    };
    const signals = ['SIGTERM', 'SIGHUP', 'SIGINT'] as const;
    for (const signal of signals) process.on(signal, onSignal);
    try {
      await connection.closed;
      await server.shutdown();
    } finally {
      for (const signal of signals) process.off(signal, onSignal);
    }
  });
}

function portOptions(flags: AcpFlags): AgentPortOptions {
  const options: AgentPortOptions = { env: process.env };
  if (flags.provider !== undefined) options.provider = flags.provider;
  if (flags.model !== undefined) options.model = flags.model;
  if (flags.baseUrl !== undefined) options.baseUrl = flags.baseUrl;
  if (flags.cassette !== undefined) options.cassette = flags.cassette;
  if (flags.store !== undefined) options.store = flags.store;
  if (flags.allowLocalConfig) options.allowLocalConfig = true;
  if (flags.checkpoint === false) options.checkpoint = false;
  if (flags.sandbox !== undefined) options.sandbox = flags.sandbox;
  if (flags.allowNetwork) options.allowNetwork = true;
  if (flags.maxChildDepth !== undefined) options.maxChildDepth = flags.maxChildDepth;
  if (flags.maxChildren !== undefined) options.maxChildren = flags.maxChildren;
  return options;
}

/**
 * The scripted test agent when `MINICODE_ACP_SCRIPTED=1` (an explicit switch wins, so tests stay
 * deterministic), else the real port when its module is installed, else undefined.
 */
async function loadPort(options: AgentPortOptions): Promise<AgentPort | undefined> {
  if (process.env.MINICODE_ACP_SCRIPTED === '1') {
    const { createScriptedPort } = await import('../../lib/acp/scripted-port.js');
    return createScriptedPort();
  }
  let module: AgentPortModule;
  try {
    // A literal specifier, so that the CLI bundle carries the port as a lazy chunk.
    module = (await import('../../lib/agent/acp-port.js')) as AgentPortModule;
  } catch (error) {
    // Only "the module is not there" means no port; an error inside the module must surface.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes('acp-port')) return undefined;
    throw error;
  }
  return module.createAgentPort(options);
}
