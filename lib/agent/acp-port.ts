/**
 * The real ACP agent port: every ACP session is one minicode session in the LMDB store (the ACP
 * session id IS the minicode session id, so `minicode replay <id>` shows an IDE session), and
 * every `session/prompt` is one turn of it through `runPrompt` (scrub -> envelope -> reduce ->
 * store), the conversation carried from turn to turn. The server's services plug into the loop:
 * `requestPermission` is the loop's `promptApproval`, the client's `fs/*` and `terminal/*` are
 * the tools' file system and terminal when offered. Prompt turns are checkpointed like exec's
 * (ACP has no rewind method of its own; `minicode undo --session <id>` takes a turn back).
 */
import path from 'node:path';
import type {
  AgentPort,
  AgentPortOptions,
  PromptInput,
  PromptOutcome,
  PromptPart,
  PromptStopReason,
  ToolKind,
} from '../acp/agent-port.js';
import { imageFromBytes, type ImageAttachment } from '../images/load.js';
import { acceptsImages } from '../images/vision.js';
import { prepareRun, sandboxModeFlag, startConfigMcp, startRunMcp, type RunSetup } from './run-setup.js';
import { loadConfig } from '../config-files.js';
import { sandboxInMode } from '../sandbox/resolve.js';
import { DEFAULT_SANDBOX_MODE, type SandboxMode, type SandboxSettings } from '../sandbox/settings.js';
import { serversFromAcp } from '../mcp/acp-servers.js';
import type { ResolvedServer } from '../mcp/config.js';
import { combineToolSources, type McpManager } from '../mcp/index.js';
import type { EventDraft, OutputEvent } from '../events/index.js';
import { isThrownCode, MinicodeError } from '../errors.js';
import type { ReducerState } from '../reducer/index.js';
import { createRebuilder } from '../reducer/rebuild.js';
import { openStore, resolveStoreDir, type EventStore } from '../store/index.js';
import type { ApprovalDecision, ApprovalRequest, ToolFileSystem, ToolTerminal } from '../tools/types.js';
import type { ConversationMessage } from './conversation.js';
import { conversationFromEvents, storedImageBytes } from './history.js';
import type { AgentResult } from './loop.js';
import { interaction } from './interaction.js';
import { inFolder } from './folder-setup.js';
import { endSession, runPrompt } from './run-prompt.js';
import type { ToolEnvironment } from './tool-environment.js';
import { createShellSession, type ShellSession } from '../tools/shell-session.js';
import { loadCustomCommands } from '../extensions/commands.js';
import { reportDropped } from '../debug.js';
import { definedOnly } from '../defined-only.js';

/** What the port keeps of one session between turns. */
interface PortSession {
  /** False until the first prompt wrote `session.started`. */
  started: boolean;
  nextSeq: number;
  turn: number;
  state: ReducerState | undefined;
  history: ConversationMessage[];
  /** The MCP servers the client passed for this session. */
  mcp?: McpManager;
  /** What they were started from, to start them again when the session's sandbox turns on or off. */
  mcpServers?: { servers: ResolvedServer[]; cwd: string; sandbox: SandboxSettings | undefined };
  /** The last turn's environment (its hooks run at the session's end) and how that turn ended. */
  ended?: { environment: ToolEnvironment; reason: AgentResult['reason'] };
  /** The turn in flight, if any. */
  running?: Promise<unknown>;
  /** The session's shell (Claude's bash shape), made at its first prompt. */
  shell?: ShellSession;
  /** `session/load` reopened it: its next prompt runs SessionStart with source `resume`. */
  resumed?: boolean;
}

/**
 * How long a turn still in flight when its session ends (the connection closed; the turn was
 * cancelled) may take to settle before the session is left as the store has it: 5 s. Its
 * SessionEnd hooks run once it has settled, each bounded by its own timeout.
 */
export const TURN_SETTLE_MS = 5_000;

/** Lazily started, shared by every session of the connection. */
interface Shared {
  setup?: Promise<RunSetup> | undefined;
  store?: EventStore;
  /** The config's MCP servers, started once for every session of the connection, in its sandbox. */
  configMcp?: Promise<McpManager | undefined>;
  /**
   * The config's MCP servers for the sessions whose `sandbox` option turns the sandbox on where
   * the connection's is off, or off where it is on; started once, when the first such session prompts.
   */
  otherConfigMcp?: Promise<McpManager | undefined>;
}

/**
 * True when `sandbox` puts a stdio MCP server in a sandbox. A server's profile (serverSandbox)
 * depends on the run's mode only through this: `read-only` and `workspace-write` give the same.
 */
function sandboxesServers(sandbox: SandboxSettings | undefined): boolean {
  return sandbox !== undefined && sandbox.mode !== 'off';
}

/**
 * Create the port for one `minicode acp` connection. The provider (a replay cassette's loopback
 * server included) is resolved at the first prompt, so `initialize` works without credentials
 * and a missing key answers that prompt with auth-required (-32000).
 */
export function createAgentPort(options: AgentPortOptions): AgentPort {
  const env = options.env ?? process.env;
  const sessions = new Map<string, PortSession>();
  const shared: Shared = {};

  const setup = (): Promise<RunSetup> => {
    shared.setup ??= prepareRun(
      {
        provider: options.provider,
        model: options.model,
        baseUrl: options.baseUrl,
        cassette: options.cassette,
        store: options.store,
        allowLocalConfig: options.allowLocalConfig,
        checkpoint: options.checkpoint,
        sandbox: options.sandbox,
        allowNetwork: options.allowNetwork,
        maxChildDepth: options.maxChildDepth,
        maxChildren: options.maxChildren,
      },
      env,
    ).catch((error: unknown) => {
      // Not cached: the user may fix the environment's config and prompt again.
      shared.setup = undefined;
      throw error;
    });
    return shared.setup;
  };
  const store = (): EventStore => (shared.store ??= openStore({ dir: resolveStoreDir({ flag: options.store, env }) }));

  let sandboxDefault: Promise<SandboxMode> | undefined;

  /** End a session this process ran a turn of: its SessionEnd hooks, then `session.ended` in the store. */
  const endPortSession = async (sessionId: string, hookReason: 'exit' | 'other'): Promise<void> => {
    const session = sessions.get(sessionId);
    if (!session) return;
    sessions.delete(sessionId);
    // A turn still in flight was cancelled (session/close, a closed connection): it settles, then
    // the session ends. One that does not settle in time (waiting on the client that left) is
    // left to rebuild as interrupted.
    if (session.running && !(await settlesWithin(session.running, TURN_SETTLE_MS))) return;
    await session.mcp?.close();
    delete session.mcp;
    if (!session.ended || !session.state) return;
    await endSession({
      sessionId,
      startSeq: session.nextSeq,
      state: session.state,
      reason: session.ended.reason,
      store: store(),
      env,
      environment: session.ended.environment,
      hookReason,
    });
  };

  return {
    // The custom slash commands of the session's folder (the user's, and with --allow-local-config
    // the project's there); a prompt `/name args` runs one.
    availableCommands: (cwd) =>
      loadCustomCommands({ env, cwd, allowLocalConfig: options.allowLocalConfig === true }).commands.map((c) => ({
        name: c.name,
        description: c.description,
        ...(c.argumentHint ? { hint: c.argumentHint } : {}),
      })),
    sandboxMode() {
      // The flag's mode, else the config's: read without the provider, so a session opens (and
      // shows its option) before credentials are there. A bad flag or config fails the first
      // prompt, with its own message.
      sandboxDefault ??= (async () => {
        try {
          const flag = sandboxModeFlag(options.sandbox);
          if (flag) return flag;
          const loaded = await loadConfig({
            env,
            cwd: process.cwd(),
            allowLocalConfig: options.allowLocalConfig === true,
          });
          return loaded.config.sandbox?.mode ?? DEFAULT_SANDBOX_MODE;
        } catch (error) {
          reportDropped('acp: the default sandbox mode', error);
          return DEFAULT_SANDBOX_MODE;
        }
      })();
      return sandboxDefault;
    },

    async acceptsImages() {
      // The model new sessions start with: the flag's, else the set-up's (config, environment).
      // Without a set-up (no credentials yet) nothing says the model sees images: not advertised.
      if (options.model !== undefined) return acceptsImages(options.model);
      try {
        return acceptsImages((await setup()).provider.model);
      } catch (error) {
        reportDropped('acp: the model for promptCapabilities.image', error);
        return false;
      }
    },

    async openSession(info) {
      if (!sessions.has(info.sessionId))
        sessions.set(info.sessionId, { started: false, nextSeq: 0, turn: 1, state: undefined, history: [] });
      const session = sessions.get(info.sessionId)!;
      // A loaded session gets the servers of this load, not those of an earlier one.
      await session.mcp?.close();
      delete session.mcp;
      delete session.mcpServers;
      if (info.mcpServers && info.mcpServers.length > 0) {
        const { startAction, startMcpServers } = await import('../mcp/manager.js');
        // The client's servers start in the connection's sandbox, the session's option's value at
        // this point; a prompt under another value starts them again. Without a set-up (no provider
        // yet, no backend) none start.
        let sandbox: RunSetup['environment']['sandbox'];
        try {
          sandbox = (await setup()).environment.sandbox;
        } catch (error) {
          return { notices: [`MCP servers of this session were not started: ${(error as Error).message}`] };
        }
        const servers = serversFromAcp(info.mcpServers);
        session.mcpServers = { servers, cwd: info.cwd, sandbox };
        session.mcp = await startMcpServers(servers, { env, cwd: info.cwd, sandbox });
        // The failures are diagnostics of the first turn's events too; the client sees them now.
        const failed = session.mcp.statuses().filter((s) => s.state === 'failed');
        if (failed.length > 0)
          return {
            notices: failed.map(
              (s) =>
                `MCP server ${s.name} failed to start: ${s.error ?? 'unknown error'}. Its tools are not available in this session; ${startAction(s)}.`,
            ),
          };
      }
      return undefined;
    },

    async loadSession(sessionId) {
      const events = store().readSession(sessionId);
      const known = sessions.get(sessionId);
      if (events.length === 0) return known ? [] : null;
      // A session this process ran keeps its exact conversation (reasoning items included);
      // one from the store gets the conversation its events tell.
      if (!known?.started) {
        const rebuilder = createRebuilder({ sessionId });
        for (const e of events) rebuilder.push(e);
        const conversation = conversationFromEvents(events, storedImageBytes(store()));
        sessions.set(sessionId, {
          started: true,
          nextSeq: conversation.nextSeq,
          turn: conversation.nextTurn,
          state: rebuilder.unsettled(),
          history: conversation.messages,
        });
      }
      sessions.get(sessionId)!.resumed = true;
      return events;
    },

    async prompt(input) {
      const run = await setup();
      const base = run.environment.sandbox;
      const sandbox = base && input.sandbox !== undefined ? sandboxInMode(base, input.sandbox, env) : base;
      // The session's sandbox governs its stdio MCP servers as it governs bash: the config's
      // servers come from the connection's manager, or from the one started in the other
      // setting when the option turned the sandbox on or off against the connection's.
      const configMcp =
        sandboxesServers(sandbox) === sandboxesServers(base)
          ? await (shared.configMcp ??= startRunMcp(run, env))
          : await (shared.otherConfigMcp ??= startConfigMcp(run, sandbox, env));
      const session = sessions.get(input.sessionId) ?? {
        started: false,
        nextSeq: 0,
        turn: 1,
        state: undefined,
        history: [],
      };
      const started = session.mcpServers;
      if (started && sandboxesServers(started.sandbox) !== sandboxesServers(sandbox)) {
        // The client's servers start again in the session's sandbox (their state goes with the old processes).
        const { startMcpServers } = await import('../mcp/manager.js');
        await session.mcp?.close();
        session.mcpServers = { ...started, sandbox };
        session.mcp = await startMcpServers(started.servers, { env, cwd: started.cwd, sandbox });
      }
      const toolSource = combineToolSources([session.mcp, configMcp]);
      sessions.set(input.sessionId, session);
      const tools = new Map<string, { kind?: ToolKind; input?: unknown }>();
      let modelStop: string | undefined;
      const onEvent = (event: OutputEvent) => {
        if (event.type === 'tool.started')
          tools.set(
            event.payload.toolCallId,
            definedOnly({ kind: event.payload.kind || undefined, input: event.payload.input }),
          );
        if (event.type === 'model.response.completed') modelStop = event.payload.stopReason;
        input.onEvent(event);
      };
      const promptApproval = async (request: ApprovalRequest): Promise<ApprovalDecision> => {
        const tool = request.toolCallId === undefined ? undefined : tools.get(request.toolCallId);
        return input.requestPermission(
          definedOnly({
            toolCallId: request.toolCallId ?? `approval-${request.toolName}`,
            toolName: request.toolName,
            title: request.action,
            kind: tool?.kind || undefined,
            input: tool?.input,
            sandboxRefusal: request.sandboxRefusal,
          }),
        );
      };
      const provider =
        input.model === undefined || input.model === run.provider.model
          ? run.provider
          : { ...run.provider, model: input.model };
      const preamble: EventDraft[] =
        !session.started && run.loaded.ignoredLocal
          ? [
              {
                type: 'diagnostic.raised',
                payload: {
                  code: 'MINICODE_E_LOCAL_CONFIG_IGNORED',
                  message: `ignored ${run.loaded.ignoredLocal}`,
                  action: 'pass --allow-local-config to trust it',
                  category: 'CONFIGURATION_ERROR',
                },
              },
            ]
          : [];
      const continued = session.started && session.state ? session.state : undefined;
      // The session's folder: its hooks, commands, skills, agents and instructions.
      const here = await inFolder(run, input.cwd, { env });
      const running = runPrompt({
        origin: 'acp',
        prompt: input.text,
        images: imagesOf(input.parts),
        provider,
        limits: run.limits,
        // Each prompt turn is checkpointed in the client's cwd under the ACP session id, so
        // `minicode undo --session <id>` takes a turn back.
        environment: {
          ...here.environment,
          // The ACP modes are minicode's approval modes under the same names (ask, auto, read-only).
          policy: { ...run.environment.policy, mode: input.mode },
          toolSource,
          fileSystem: clientFileSystem(input),
          sandbox,
          // The client's terminal runs commands outside minicode's sandbox: used only when the session's sandbox is off.
          terminal: sandbox && sandbox.mode !== 'off' ? undefined : clientTerminal(input),
        },
        prompting: here.prompting,
        // Claude's bash keeps its working directory and variables from one prompt of the session to the next.
        shell: (session.shell ??= createShellSession(here.environment.cwd)),
        // A person answers through the client: `ask` decisions go to session/request_permission.
        interaction: interaction({ tty: true, promptApproval }),
        signal: input.signal,
        store: store(),
        endSession: false,
        onEvent,
        preamble,
        session: continued
          ? {
              id: input.sessionId,
              startSeq: session.nextSeq,
              state: continued,
              history: session.history,
              turn: session.turn,
            }
          : undefined,
        sessionId: input.sessionId,
        sessionStart: session.resumed ? 'resume' : undefined,
      });
      delete session.resumed;
      // The session's record is updated before `running` settles: a session ending meanwhile ends with this turn.
      const settled = running
        .then((result) => {
          session.ended = { environment: here.environment, reason: result.result.reason };
          session.started = true;
          session.nextSeq = result.nextSeq;
          session.state = result.state;
          session.history = result.result.messages;
          session.turn += 1;
          return result;
        })
        .finally(() => {
          delete session.running;
        });
      session.running = settled.then(
        () => undefined,
        () => undefined,
      );
      const result = await settled;
      return outcomeOf(result.result, modelStop);
    },

    async closeSession(sessionId) {
      await endPortSession(sessionId, 'exit');
    },

    async close() {
      // Sessions the client never closed end with the connection.
      await Promise.all([...sessions.keys()].map((id) => endPortSession(id, 'other')));
      const closing: Promise<void>[] = [...sessions.values()].map((s) => s.mcp?.close() ?? Promise.resolve());
      if (shared.otherConfigMcp)
        closing.push(
          shared.otherConfigMcp.then(
            (m) => m?.close(),
            () => undefined,
          ),
        );
      if (shared.store) closing.push(shared.store.close());
      if (shared.setup)
        closing.push(
          shared.setup.then(
            (s) => s.close(),
            () => undefined,
          ),
        );
      await Promise.all(closing);
    },
  };
}

/** True when `running` settles within `ms`. */
async function settlesWithin(running: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([running.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The prompt's image blocks as images checked by their bytes (the declared `mimeType` is not
 * trusted); MINICODE_E_IMAGE when one is no image or past a limit. Named after their `uri`, else
 * `image-N` with the extension of their type.
 */
function imagesOf(parts: readonly PromptPart[]): ImageAttachment[] | undefined {
  const images = parts.filter((p): p is Extract<PromptPart, { type: 'image' }> => p.type === 'image');
  if (images.length === 0) return undefined;
  return images.map((part, i) => {
    const named = part.uri ? path.posix.basename(part.uri.replace(/[?#].*$/, '')) : '';
    const name =
      named !== '' ? named : `image-${i + 1}.${part.mimeType.replace(/^image\//, '').replace('jpeg', 'jpg') || 'img'}`;
    return imageFromBytes(Buffer.from(part.data, 'base64'), name);
  });
}

/** The client's files for the tools when it offers `fs/*`; absent: the tools use node fs. */
function clientFileSystem(input: PromptInput): ToolFileSystem | undefined {
  if (input.fs.via !== 'client') return undefined;
  return {
    readTextFile: (file) => input.fs.readTextFile(file),
    writeTextFile: (file, content) => input.fs.writeTextFile(file, content),
  };
}

/** The client's terminals for bash when it offers `terminal/*`; absent: a local subprocess. */
function clientTerminal(input: PromptInput): ToolTerminal | undefined {
  const terminal = input.terminal;
  if (!terminal) return undefined;
  return { run: (command, signal) => terminal.run(command, signal) };
}

/**
 * How the turn ended, in ACP's words. A run that completed ends the turn (`max_tokens` /
 * `refusal` when the model's last response said so); an abort is `cancelled`; too many model
 * requests is `max_turn_requests`. Provider failures, timeouts and budgets are errors of the
 * prompt (-32603 with the minicode code): ACP has no stop reason that says so truthfully.
 */
function outcomeOf(result: AgentResult, modelStop: string | undefined): PromptOutcome {
  const stop = (stopReason: PromptStopReason): PromptOutcome => ({ stopReason });
  switch (result.reason) {
    case 'completed':
      return stop(modelStop === 'max_tokens' ? 'max_tokens' : modelStop === 'refusal' ? 'refusal' : 'end_turn');
    case 'aborted':
      return stop('cancelled');
    case 'max_steps_exceeded':
      return stop('max_turn_requests');
    default: {
      const code = result.error?.code;
      const known = code !== undefined && isThrownCode(code) ? code : 'MINICODE_E_INTERNAL';
      throw new MinicodeError(known, result.error?.message ?? `the turn ended: ${result.reason}`);
    }
  }
}
