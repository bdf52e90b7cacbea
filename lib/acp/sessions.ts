import type { SandboxMode } from '../sandbox/settings.js';
import type { ApprovalMode, PermissionDecision } from './agent-port.js';
import { AcpErrors } from './errors.js';
import { createProjector, type Projector } from './projection.js';

/** One ACP session on this connection. */
export interface AcpSession {
  readonly id: string;
  readonly cwd: string;
  mode: ApprovalMode;
  model: string | undefined;
  /** The sandbox of the session's commands; undefined when the port has none to choose. */
  sandbox: SandboxMode | undefined;
  /** Projects the live events of this session's turns. */
  readonly projector: Projector;
  /** The running turn's controller; null when idle. One turn at a time per session. */
  turn: AbortController | null;
  /** "Always" decisions by tool name, so the client is not asked again in this session. */
  readonly remembered: Map<string, Extract<PermissionDecision, 'allow-always' | 'deny'>>;
}

/** Options of {@link createSessionRegistry}. */
export interface SessionRegistryOptions {
  /** Most sessions one connection may hold; default 256. Beyond it `session/new` is refused. */
  maxSessions?: number;
}

/** The sessions of one connection, keyed by id. */
export interface SessionRegistry {
  /** Add a session; replaces an earlier entry with the same id (a reload). */
  add(init: {
    id: string;
    cwd: string;
    mode: ApprovalMode;
    model: string | undefined;
    sandbox?: SandboxMode | undefined;
  }): AcpSession;
  /** The session, or a -32002 error naming it. */
  require(id: string): AcpSession;
  has(id: string): boolean;
  /** Every session (for cancelling all turns when the connection closes). */
  all(): AcpSession[];
  /** Forget a session (`session/close`). */
  remove(id: string): void;
}

/** Create the session registry of one connection. */
export function createSessionRegistry(options: SessionRegistryOptions = {}): SessionRegistry {
  const max = options.maxSessions ?? 256;
  if (!Number.isInteger(max) || max < 1)
    throw new TypeError('createSessionRegistry: maxSessions must be a positive integer');
  const sessions = new Map<string, AcpSession>();
  return {
    add(init) {
      if (!sessions.has(init.id) && sessions.size >= max) throw AcpErrors.tooManySessions(max);
      const session: AcpSession = {
        id: init.id,
        cwd: init.cwd,
        mode: init.mode,
        model: init.model,
        sandbox: init.sandbox,
        projector: createProjector({ cwd: init.cwd }),
        turn: null,
        remembered: new Map(),
      };
      sessions.get(init.id)?.turn?.abort();
      sessions.set(init.id, session);
      return session;
    },
    require(id) {
      const session = sessions.get(id);
      if (!session) throw AcpErrors.sessionNotFound(id);
      return session;
    },
    has: (id) => sessions.has(id),
    all: () => [...sessions.values()],
    remove: (id) => void sessions.delete(id),
  };
}
