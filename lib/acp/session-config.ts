import type { SessionConfigOption, SessionModeState } from '@agentclientprotocol/sdk';
import { SANDBOX_MODES, type SandboxMode } from '../sandbox/settings.js';
import { APPROVAL_MODES, type ApprovalMode } from './agent-port.js';

/** What each approval mode means, as the client shows it. */
const MODE_INFO: Record<ApprovalMode, { name: string; description: string }> = {
  ask: { name: 'Ask', description: 'Ask before every gated tool (writes, commands, MCP tools).' },
  auto: { name: 'Auto', description: 'Run allowlisted tools without asking; ask for the rest.' },
  'read-only': { name: 'Read-only', description: 'Read and search only; writes and commands are denied.' },
};

/** The default approval mode of a new session: `ask` (fail closed). */
export const DEFAULT_MODE: ApprovalMode = 'ask';

/** True when `value` names an approval mode. */
export function isApprovalMode(value: string): value is ApprovalMode {
  return (APPROVAL_MODES as readonly string[]).includes(value);
}

/** The `modes` field of `session/new` and `session/load` responses. */
export function modeState(current: ApprovalMode): SessionModeState {
  return {
    currentModeId: current,
    availableModes: APPROVAL_MODES.map((id) => ({ id, ...MODE_INFO[id] })),
  };
}

/** What each sandbox mode means, as the client shows it (docs/sandbox.md). */
const SANDBOX_INFO: Record<SandboxMode, { name: string; description: string }> = {
  'workspace-write': {
    name: 'Workspace write',
    description: 'Commands run in the OS sandbox: write the workspace only, no network unless opened.',
  },
  'read-only': {
    name: 'Read-only',
    description: 'Commands run in the OS sandbox: write nothing but a private temp folder.',
  },
  off: { name: 'Off', description: 'Commands run unsandboxed (and in the client terminal when it offers one).' },
};

/** True when `value` names a sandbox mode. */
export function isSandboxMode(value: string): value is SandboxMode {
  return (SANDBOX_MODES as readonly string[]).includes(value);
}

/** Config option ids this agent understands. */
export const CONFIG_IDS = { mode: 'mode', model: 'model', sandbox: 'sandbox' } as const;

/** The settings config options describe. */
export interface ConfigState {
  mode: ApprovalMode;
  /** Current model, when one is known. */
  model?: string;
  /** Models the user may pick; the model option is offered only when there is a choice to show. */
  models: string[];
  /** The sandbox of the session's commands; the option is offered only when the port has one. */
  sandbox?: SandboxMode;
}

/**
 * Session config options (the newer form of modes): the approval mode (category `mode`, kept in
 * sync with `session/set_mode`), the model (category `model`) when models are known, and the
 * sandbox of the session's commands (no standard category fits it).
 */
export function configOptions(state: ConfigState): SessionConfigOption[] {
  const options: SessionConfigOption[] = [
    {
      id: CONFIG_IDS.mode,
      name: 'Approval mode',
      category: 'mode',
      type: 'select',
      currentValue: state.mode,
      options: APPROVAL_MODES.map((id) => ({
        value: id,
        name: MODE_INFO[id].name,
        description: MODE_INFO[id].description,
      })),
    },
  ];
  const models =
    state.model !== undefined && !state.models.includes(state.model) ? [state.model, ...state.models] : state.models;
  if (state.model !== undefined && models.length > 0) {
    options.push({
      id: CONFIG_IDS.model,
      name: 'Model',
      category: 'model',
      type: 'select',
      currentValue: state.model,
      options: models.map((m) => ({ value: m, name: m })),
    });
  }
  if (state.sandbox !== undefined) {
    options.push({
      id: CONFIG_IDS.sandbox,
      name: 'Sandbox',
      type: 'select',
      currentValue: state.sandbox,
      options: SANDBOX_MODES.map((id) => ({
        value: id,
        name: SANDBOX_INFO[id].name,
        description: SANDBOX_INFO[id].description,
      })),
    });
  }
  return options;
}
