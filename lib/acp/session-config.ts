import type { SessionConfigOption, SessionModeState } from '@agentclientprotocol/sdk';
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

/** Config option ids this agent understands. */
export const CONFIG_IDS = { mode: 'mode', model: 'model' } as const;

/** The settings config options describe. */
export interface ConfigState {
  mode: ApprovalMode;
  /** Current model, when one is known. */
  model?: string;
  /** Models the user may pick; the model option is offered only when there is a choice to show. */
  models: string[];
}

/**
 * Session config options (the newer form of modes): the approval mode (category `mode`, kept in
 * sync with `session/set_mode`) and the model (category `model`) when models are known.
 */
export function configOptions(state: ConfigState): SessionConfigOption[] {
  const options: SessionConfigOption[] = [
    {
      id: CONFIG_IDS.mode,
      name: 'Approval mode',
      category: 'mode',
      type: 'select',
      currentValue: state.mode,
      options: APPROVAL_MODES.map((id) => ({ value: id, name: MODE_INFO[id].name, description: MODE_INFO[id].description })),
    },
  ];
  const models = state.model !== undefined && !state.models.includes(state.model) ? [state.model, ...state.models] : state.models;
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
  return options;
}
