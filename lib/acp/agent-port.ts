import type { SandboxMode } from '../sandbox/settings.js';
import type { OutputEvent, PayloadOf } from '../events/index.js';
import type { AcpMcpServer } from '../mcp/acp-servers.js';

/** Kind of tool, as the events and ACP group them. */
export type ToolKind = NonNullable<PayloadOf<'tool.started'>['kind']>;

/**
 * The seam between the ACP server and whatever runs prompts (the agent loop of `minicode exec`,
 * or the scripted port of the tests). The server owns the protocol (sessions, modes, the
 * client's permission / fs / terminal services, the projection of events to `session/update`);
 * the port owns the model, the tools and the store. Swapping ports never touches the server.
 */
export interface AgentPort {
  /**
   * Run one prompt turn. Every event of the turn goes through `onEvent` (synchronously, in
   * order) before the returned promise settles. When `signal` aborts, the port stops as soon
   * as it can and resolves (any stop reason, or throws): the server answers `cancelled` then.
   */
  prompt(input: PromptInput): Promise<PromptOutcome>;
  /**
   * The durable events of an earlier session, in order, for `session/load`; `null` when the
   * session is unknown. Defaults to "no session can be loaded" when absent.
   */
  loadSession?(sessionId: string): Promise<OutputEvent[] | null>;
  /**
   * Called once when a session is created or loaded, before its first prompt. The notices it
   * returns (e.g. a client's MCP server that failed to start) are shown to the client.
   */
  openSession?(info: SessionInfo): Promise<void | { notices?: string[] }>;
  /**
   * The sandbox mode a new session's commands start in (`--sandbox`, else the config's
   * `sandbox.mode`, else `workspace-write`); absent: the port runs no commands of its own and
   * no sandbox option is offered.
   */
  sandboxMode?(): Promise<SandboxMode>;
  /**
   * Whether prompts may carry images (`promptCapabilities.image`): true only when the model the
   * sessions start with takes image input. Absent: false (image blocks are then dropped).
   */
  acceptsImages?(): Promise<boolean>;
  /** Slash commands the port understands in a session working in `cwd`, advertised with `available_commands_update`. */
  availableCommands?(cwd: string): AvailableCommandInfo[];
  /**
   * The client closed a session (`session/close`, after its turn was cancelled and settled): the
   * session ends (its SessionEnd hooks run, reason `exit`).
   */
  closeSession?(sessionId: string): Promise<void>;
  /** Release whatever the port holds (store handles, worker pools) when the connection ends; sessions still open end (SessionEnd, reason `other`). */
  close?(): Promise<void>;
}

/** What the server knows of a session when it opens it. */
export interface SessionInfo {
  sessionId: string;
  /** Absolute working directory the client gave. */
  cwd: string;
  mode: ApprovalMode;
  model?: string;
  /** True for `session/load`. */
  loaded: boolean;
  /** MCP servers the client passed for this session (ACP `mcpServers`). */
  mcpServers?: readonly AcpMcpServer[];
}

/**
 * Approval modes, the same names as the rest of minicode uses:
 * `ask` asks the client before every gated tool; `auto` runs allowlisted tools without asking
 * and asks for the rest; `read-only` denies every write and command without asking.
 */
export { APPROVAL_MODES } from '../policy/decide.js';
/** One approval mode. */
export type ApprovalMode = import('../policy/decide.js').ApprovalModeName;

/** The user's decision on a gated tool, as the approval events carry it. */
export type PermissionDecision = 'allow' | 'allow-always' | 'deny' | 'cancelled';

/** A gated tool that wants to run; the server turns it into `session/request_permission`. */
export interface PermissionRequest {
  toolCallId: string;
  toolName: string;
  /** One-line human title, e.g. the command or the path. */
  title: string;
  kind?: ToolKind;
  input?: unknown;
  /** A question to rerun a command outside the sandbox: the line (scrubbed) that says what the sandbox refused. */
  sandboxRefusal?: string;
}

/** A prompt content block the port may want beyond the flattened text; an image's `data` is base64, as ACP sends it. */
export type PromptPart =
  | { type: 'text'; text: string }
  | { type: 'resource_link'; uri: string; name: string }
  | { type: 'resource'; uri: string; text?: string; mimeType?: string }
  | { type: 'image'; data: string; mimeType: string; uri?: string };

/** Input of one prompt turn. */
export interface PromptInput {
  sessionId: string;
  /** The prompt as one text: text blocks joined, resource links as `@uri`, embedded text inline. */
  text: string;
  parts: PromptPart[];
  cwd: string;
  mode: ApprovalMode;
  model?: string;
  /** The session's sandbox mode (its `sandbox` config option); absent: the connection's. */
  sandbox?: SandboxMode;
  signal: AbortSignal;
  /** Receives every `minicode.output.v1` event of the turn (live and durable). */
  onEvent: (event: OutputEvent) => void;
  /**
   * Ask the user about a gated tool. Resolves `cancelled` when the turn is cancelled; never
   * rejects. Decisions "always" are remembered per session and tool name by the server.
   */
  requestPermission: (request: PermissionRequest) => Promise<PermissionDecision>;
  /**
   * File access for the tools. Goes through the client's `fs/*` methods (its editor buffers)
   * when the client offers them, else the local file system; `via` says which.
   */
  fs: TextFileAccess;
  /**
   * Commands through the client's `terminal/*` methods, present only when the client offers
   * the capability. Absent: the port runs commands itself, as `exec` does.
   */
  terminal?: TerminalAccess;
}

/** Text file access; paths are absolute (relative paths resolve against the session cwd). */
export interface TextFileAccess {
  readonly via: 'client' | 'local';
  /** `line` is 1-based; `limit` counts lines. */
  readTextFile(path: string, options?: { line?: number; limit?: number }): Promise<string>;
  writeTextFile(path: string, content: string): Promise<void>;
}

/** A command to run in a client terminal. */
export interface TerminalCommand {
  command: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** The client keeps at most this many bytes of output (it truncates from the start). */
  outputByteLimit?: number;
  /** When set, the terminal is embedded in that tool call's content so the IDE shows it live. */
  toolCallId?: string;
}

/** The result of a command run in a client terminal. */
export interface TerminalResult {
  output: string;
  truncated: boolean;
  exitCode: number | null;
  signal: string | null;
}

/** Commands through the client's terminals. */
export interface TerminalAccess {
  /** Create the terminal, wait for the command to exit (killing it if `signal` aborts), release it. */
  run(command: TerminalCommand, signal: AbortSignal): Promise<TerminalResult>;
}

/** A slash command. */
export interface AvailableCommandInfo {
  name: string;
  description: string;
  /** Hint shown for the command's free-text input, when it takes one. */
  hint?: string;
}

/** Why a turn stopped (ACP's stop reasons; `cancelled` is set by the server on cancel). */
export type PromptStopReason = 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled';

/** The outcome of one prompt turn. */
export interface PromptOutcome {
  stopReason: PromptStopReason;
}

/** Options a port factory receives: the provider flags of `minicode exec`. */
export interface AgentPortOptions {
  provider?: string;
  model?: string;
  baseUrl?: string;
  /** Loopback replay of recorded provider responses (`--cassette DIR`). */
  cassette?: string;
  store?: string;
  allowLocalConfig?: boolean;
  /** False (`--no-checkpoint`): no workspace checkpoints of the prompt turns. */
  checkpoint?: boolean;
  /** `--sandbox`: the sandbox mode of every session's `bash` and MCP servers. */
  sandbox?: string;
  /** `--allow-network`: open the network inside the sandbox. */
  allowNetwork?: boolean;
  /** `--max-child-depth N`: how deep child sessions nest (default: config `children.maxDepth`, else 1). */
  maxChildDepth?: string;
  /** `--max-children N`: child sessions of one run running at once (default: config `children.maxConcurrent`, else 4). */
  maxChildren?: string;
  /** Environment to read provider variables from; default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** The shape of `lib/agent/acp-port.js`, the real port's module. */
export interface AgentPortModule {
  createAgentPort(options: AgentPortOptions): AgentPort | Promise<AgentPort>;
}
