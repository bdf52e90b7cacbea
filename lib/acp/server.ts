import path from 'node:path';
import {
  agent,
  PROTOCOL_VERSION,
  RequestError,
  type AgentApp,
  type AgentConnection,
  type AgentContext,
  type ClientCapabilities,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { MinicodeError } from '../errors.js';
import { newSessionId } from '../ids.js';
import type { AgentPort, PromptInput, PromptStopReason, SessionInfo } from './agent-port.js';
import { askPermission, terminalAccess, textFileAccess, type Diagnose } from './client-services.js';
import { AcpErrors } from './errors.js';
import { promptParts, promptText } from './prompt-content.js';
import { createProjector } from './projection.js';
import { CONFIG_IDS, DEFAULT_MODE, configOptions, isApprovalMode, isSandboxMode, modeState } from './session-config.js';
import { createSessionRegistry, type AcpSession } from './sessions.js';
import type { ObservedTransport } from './transport.js';
import { definedOnly } from '../defined-only.js';

/** Options of {@link createAcpServer}. */
export interface AcpServerOptions {
  port: AgentPort;
  /** Name and version reported in `initialize`. */
  agentInfo: { name: string; version: string };
  /** Model of new sessions (the `--model` flag); absent: the port's default. */
  model?: string;
  /** Models offered in the `model` config option besides `model`; default none. */
  models?: string[];
  /** Session id source; default {@link newSessionId}. Tests inject a deterministic one. */
  newSessionId?: () => string;
  /** Most sessions per connection; default 256. */
  maxSessions?: number;
  /** Diagnostics sink; default one line on stderr. */
  diagnose?: Diagnose;
}

/** The single auth method: provider credentials come from the environment, as for `exec`. */
const AUTH_METHOD = {
  id: 'environment',
  name: 'Provider credentials from the environment',
  description:
    'minicode reads provider API keys from its environment (see `minicode exec --help`); nothing to enter here.',
};

/**
 * Build the ACP agent for one connection: the SDK's agent app (framing, JSON-RPC errors and
 * params validation) with minicode's handlers. Call `connect` once with the transport.
 */
export function createAcpServer(
  options: AcpServerOptions,
  transport: ObservedTransport,
): {
  app: AgentApp;
  connect(): AgentConnection;
  /**
   * End the connection's work (once, whoever asks first): every turn in flight is cancelled and
   * the port closes, which ends each session after its turn has settled. The connection's end
   * calls it; so does `minicode acp` when the client leaves by a signal rather than by closing
   * its input.
   */
  shutdown(): Promise<void>;
} {
  const { port } = options;
  const diagnose: Diagnose = options.diagnose ?? ((message) => process.stderr.write(`minicode acp: ${message}\n`));
  const nextId = options.newSessionId ?? (() => newSessionId());
  const sessions = createSessionRegistry(options.maxSessions === undefined ? {} : { maxSessions: options.maxSessions });
  const models = options.models ?? [];
  let capabilities: ClientCapabilities = {};
  /** What `initialize` advertised as `promptCapabilities.image`. */
  let images = false;

  const send = (client: AgentContext, sessionId: string, update: SessionUpdate): Promise<void> =>
    client.notify('session/update', { sessionId, update });

  const config = (session: AcpSession) =>
    configOptions({
      mode: session.mode,
      models,
      ...(session.model === undefined ? {} : { model: session.model }),
      ...(session.sandbox === undefined ? {} : { sandbox: session.sandbox }),
    });

  /** The port's `openSession` for a session just created (`loaded` false) or loaded. */
  const openSession = (session: AcpSession, loaded: boolean, mcpServers: SessionInfo['mcpServers']) =>
    port.openSession?.(
      definedOnly({
        sessionId: session.id,
        cwd: session.cwd,
        mode: session.mode,
        model: session.model || undefined,
        loaded,
        mcpServers: mcpServers ?? [],
      }),
    );

  /**
   * After the response that opens a session: the port's notices as agent messages (the client
   * renders them; a diagnostic line on stderr too), then its commands (never before that response).
   */
  const announce = (
    client: AgentContext,
    requestId: string | number | null,
    session: AcpSession,
    opened: void | { notices?: string[] },
  ) => {
    const commands = port.availableCommands?.(session.cwd) ?? [];
    const notices = (opened && opened.notices) || [];
    for (const notice of notices) diagnose(notice);
    transport.afterResponse(requestId, () => {
      for (const notice of notices)
        send(client, session.id, {
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: `${notice}\n` },
        }).catch(() => {});
      const availableCommands = commands.map((c) =>
        c.hint === undefined
          ? { name: c.name, description: c.description }
          : { name: c.name, description: c.description, input: { hint: c.hint } },
      );
      send(client, session.id, { sessionUpdate: 'available_commands_update', availableCommands }).catch(() => {});
    });
  };

  const requireAbsolute = (cwd: string) => {
    if (!path.isAbsolute(cwd)) throw AcpErrors.invalidParams(`cwd must be an absolute path, got "${cwd}"`, { cwd });
  };

  const app = agent({ name: 'minicode' })
    .onRequest('initialize', async ({ params }) => {
      capabilities = params.clientCapabilities ?? {};
      images = (await port.acceptsImages?.()) ?? false;
      return {
        // We speak version 1 only; a client asking for another gets 1 and decides.
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: port.loadSession !== undefined,
          promptCapabilities: { image: images, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: port.closeSession ? { close: {} } : {},
        },
        authMethods: [AUTH_METHOD],
        agentInfo: options.agentInfo,
      };
    })
    .onRequest('authenticate', ({ params }) => {
      if (params.methodId !== AUTH_METHOD.id)
        throw AcpErrors.invalidParams(`unknown auth method "${params.methodId}"`, { methodId: params.methodId });
      return {};
    })
    .onRequest('session/new', async ({ params, client, requestId }) => {
      requireAbsolute(params.cwd);
      const session = sessions.add({
        id: nextId(),
        cwd: params.cwd,
        mode: DEFAULT_MODE,
        model: options.model,
        sandbox: await port.sandboxMode?.(),
      });
      const opened = await openSession(session, false, params.mcpServers);
      announce(client, requestId, session, opened);
      return { sessionId: session.id, modes: modeState(session.mode), configOptions: config(session) };
    })
    .onRequest('session/load', async ({ params, client, requestId }) => {
      requireAbsolute(params.cwd);
      if (!port.loadSession) throw RequestError.methodNotFound('session/load');
      if (sessions.has(params.sessionId) && sessions.require(params.sessionId).turn)
        throw AcpErrors.sessionBusy(params.sessionId);
      const events = await port.loadSession(params.sessionId);
      if (!events) throw AcpErrors.sessionNotFound(params.sessionId);
      const session = sessions.add({
        id: params.sessionId,
        cwd: params.cwd,
        mode: DEFAULT_MODE,
        model: options.model,
        sandbox: await port.sandboxMode?.(),
      });
      const opened = await openSession(session, true, params.mcpServers);
      // The whole conversation goes out before the load response, as the spec requires.
      const replay = createProjector({ cwd: session.cwd, replay: true });
      let last: Promise<void> = Promise.resolve();
      for (const event of events) for (const update of replay.project(event)) last = send(client, session.id, update);
      await last;
      announce(client, requestId, session, opened);
      return { modes: modeState(session.mode), configOptions: config(session) };
    })
    .onRequest('session/set_mode', ({ params, client, requestId }) => {
      const session = sessions.require(params.sessionId);
      if (!isApprovalMode(params.modeId))
        throw AcpErrors.invalidParams(`unknown mode "${params.modeId}"`, { modeId: params.modeId });
      session.mode = params.modeId;
      // Keep the config-option view of the mode in step with the modes view.
      transport.afterResponse(requestId, () => {
        send(client, session.id, { sessionUpdate: 'config_option_update', configOptions: config(session) }).catch(
          () => {},
        );
      });
      return {};
    })
    .onRequest('session/set_config_option', ({ params, client, requestId }) => {
      const session = sessions.require(params.sessionId);
      const value = 'type' in params && params.type === 'boolean' ? undefined : (params as { value: unknown }).value;
      if (typeof value !== 'string')
        throw AcpErrors.invalidParams(`config option "${params.configId}" takes a value id`, {
          configId: params.configId,
        });
      if (params.configId === CONFIG_IDS.mode) {
        if (!isApprovalMode(value)) throw AcpErrors.invalidParams(`unknown mode "${value}"`, { value });
        session.mode = value;
        transport.afterResponse(requestId, () => {
          send(client, session.id, { sessionUpdate: 'current_mode_update', currentModeId: session.mode }).catch(
            () => {},
          );
        });
      } else if (params.configId === CONFIG_IDS.model && session.model !== undefined) {
        if (value !== session.model && !models.includes(value))
          throw AcpErrors.invalidParams(`unknown model "${value}"`, { value });
        session.model = value;
      } else if (params.configId === CONFIG_IDS.sandbox && session.sandbox !== undefined) {
        if (!isSandboxMode(value)) throw AcpErrors.invalidParams(`unknown sandbox mode "${value}"`, { value });
        session.sandbox = value;
      } else {
        throw AcpErrors.invalidParams(`unknown config option "${params.configId}"`, { configId: params.configId });
      }
      return { configOptions: config(session) };
    })
    .onRequest('session/prompt', async ({ params, client, signal: requestSignal }) => {
      const session = sessions.require(params.sessionId);
      if (session.turn) throw AcpErrors.sessionBusy(session.id);
      const turn = new AbortController();
      session.turn = turn;
      // `$/cancel_request` for this request or a closed connection cancel the turn too.
      const onRequestAbort = () => turn.abort();
      requestSignal.addEventListener('abort', onRequestAbort, { once: true });
      let last: Promise<void> = Promise.resolve();
      const emit = (update: SessionUpdate) => {
        last = send(client, session.id, update).catch(() => {});
      };
      try {
        const outcome = await port.prompt(
          definedOnly<PromptInput>({
            sessionId: session.id,
            text: promptText(params.prompt),
            parts: promptParts(params.prompt, images),
            cwd: session.cwd,
            mode: session.mode,
            model: session.model,
            sandbox: session.sandbox,
            signal: turn.signal,
            onEvent: (event) => {
              for (const update of session.projector.project(event)) emit(update);
            },
            requestPermission: (request) => askPermission(client, session, request, turn.signal, diagnose),
            fs: textFileAccess(client, capabilities, session),
            ...optionalTerminal(client, capabilities, session, async (toolCallId, terminalId) => {
              emit(session.projector.attachTerminal(toolCallId, terminalId));
              await last;
            }),
          }),
        );
        const stopReason: PromptStopReason = turn.signal.aborted ? 'cancelled' : outcome.stopReason;
        return { stopReason };
      } catch (error) {
        // A cancelled turn answers `cancelled`, whatever the cancellation broke underneath.
        if (turn.signal.aborted) return { stopReason: 'cancelled' as const };
        throw toRequestError(error, diagnose);
      } finally {
        requestSignal.removeEventListener('abort', onRequestAbort);
        // Every update of the turn is queued before its response.
        await last;
        session.turn = null;
      }
    })
    .onRequest('session/close', async ({ params }) => {
      const session = sessions.require(params.sessionId);
      // As session/cancel first: the turn stops and settles before the session ends.
      session.turn?.abort();
      while (session.turn) await new Promise((resolve) => setTimeout(resolve, 10));
      sessions.remove(session.id);
      await port.closeSession?.(session.id);
      return {};
    })
    .onNotification('session/cancel', ({ params }) => {
      if (!sessions.has(params.sessionId)) {
        diagnose(`session/cancel for unknown session "${params.sessionId}" ignored`);
        return;
      }
      sessions.require(params.sessionId).turn?.abort();
    });

  let shuttingDown: Promise<void> | undefined;
  const shutdown = (): Promise<void> =>
    (shuttingDown ??= (async () => {
      for (const session of sessions.all()) session.turn?.abort();
      await port.close?.();
    })().catch((error: unknown) =>
      diagnose(`closing the port failed: ${error instanceof Error ? error.message : String(error)}`),
    ));

  return {
    app,
    connect() {
      const connection = app.connect(transport.stream);
      void connection.closed.then(shutdown, shutdown);
      return connection;
    },
    shutdown,
  };
}

function optionalTerminal(...args: Parameters<typeof terminalAccess>) {
  const terminal = terminalAccess(...args);
  return terminal ? { terminal } : {};
}

/** A port failure as a JSON-RPC error: missing credentials ask for auth, the rest are internal. */
function toRequestError(error: unknown, diagnose: Diagnose): RequestError {
  if (error instanceof RequestError) return error;
  if (error instanceof MinicodeError) {
    if (error.code === 'MINICODE_E_MISSING_KEY' || error.code === 'MINICODE_E_NO_PROVIDER')
      return AcpErrors.authRequired(error.message);
    // The prompt's own content is at fault (an image that is none, too large, or for a model without vision).
    if (error.code === 'MINICODE_E_IMAGE' || error.code === 'MINICODE_E_NO_VISION')
      return AcpErrors.invalidParams(error.message, { code: error.code });
    return AcpErrors.internal(error.code, error.message);
  }
  const message = error instanceof Error ? error.message : String(error);
  diagnose(`prompt turn failed: ${message}`);
  return AcpErrors.internal('MINICODE_E_INTERNAL', message);
}
