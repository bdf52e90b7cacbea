/**
 * Where the tools of a run act and under which rules: the workspace, the environment their
 * subprocesses start from, the approval policy, checkpoints, the tools beyond the built-in set
 * (MCP servers), the file system and terminal a surface may lend them (ACP's client), and the
 * OS sandbox their commands run in, and the user's hooks around them.
 * Filled once where a run is set up and passed whole down to each tool call.
 */
import type { SandboxSettings } from '../sandbox/settings.js';
import type { CheckpointSettings } from '../checkpoints/settings.js';
import type { ApprovalPolicy } from '../policy/decide.js';
import type { ToolShapeSetting } from '../tools/shape-setting.js';
import type { HookSettings } from '../hooks/settings.js';
import type { AgentCatalogue } from './agent-definitions.js';
import {
  DEFAULT_TOOL_LIMITS,
  type ToolFileSystem,
  type ToolLimits,
  type ToolSource,
  type ToolTerminal,
} from '../tools/types.js';

/** The tools' environment; {@link toolEnvironment} fills the defaults (process.env, `auto` approvals, no checkpoints, no MCP, local files and subprocesses, {@link DEFAULT_TOOL_LIMITS}). */
export interface ToolEnvironment {
  /** The workspace root; paths are confined to it unless approved. */
  cwd: string;
  /** What subprocesses start from (each tool scrubs credentials before use) and what the scrubber learns secrets from; default `process.env`. */
  env: NodeJS.ProcessEnv;
  /** What runs without asking; default `{mode: 'auto'}` with the default allowlist. */
  policy: ApprovalPolicy;
  /** A checkpoint of the workspace before a turn's first change; undefined: none. */
  checkpoints: CheckpointSettings | undefined;
  /** Tools beyond the built-in set (MCP servers); undefined: none. */
  toolSource: ToolSource | undefined;
  /** File access for the file tools (ACP: the client's buffers); undefined: the local file system. */
  fileSystem: ToolFileSystem | undefined;
  /** Where bash runs (ACP: the client's terminals); undefined: a local subprocess. */
  terminal: ToolTerminal | undefined;
  /** Producer caps and deadlines of the tools; default {@link DEFAULT_TOOL_LIMITS}. */
  limits: ToolLimits;
  /** The OS sandbox of `bash`, `verify` and stdio MCP servers (lib/sandbox); undefined: none (a run's set-up fills it, workspace-write by default). */
  sandbox: SandboxSettings | undefined;
  /**
   * Mask the credential values of `env` in tool results before they are sent to the provider
   * (config `maskCredentialsInRequests`); default true.
   */
  maskCredentialsInRequests: boolean;
  /**
   * `native`: the vendor's tool shapes where the model is trained on them (lib/tools/shapes.ts);
   * `minicode`: minicode's own for every model (config `tools.shapes`, `--tool-shapes`); default native.
   */
  toolShapes: ToolShapeSetting;
  /**
   * The user's hooks (lib/hooks: the user config and, with `--allow-local-config`, the project's
   * settings), run around the session, each prompt and each tool call; undefined: none.
   */
  hooks: HookSettings | undefined;
  /** The agent definitions child sessions (the `task` tool) may run; undefined: the built-in ones. */
  agents: AgentCatalogue | undefined;
}

/** A tool environment in `cwd`: `given` over the defaults. */
export function toolEnvironment(cwd: string, given: Partial<Omit<ToolEnvironment, 'cwd'>> = {}): ToolEnvironment {
  return {
    cwd,
    env: process.env,
    policy: { mode: 'auto' },
    checkpoints: undefined,
    toolSource: undefined,
    fileSystem: undefined,
    terminal: undefined,
    limits: DEFAULT_TOOL_LIMITS,
    sandbox: undefined,
    maskCredentialsInRequests: true,
    toolShapes: 'native',
    hooks: undefined,
    agents: undefined,
    ...given,
  };
}
