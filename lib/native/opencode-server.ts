import type { RunCore } from './run-core.js';
import { errorInfo, reportStepUsage, toolPart } from './opencode-parts.js';
import { asRecord, str } from './text.js';
import { definedOnly } from '../defined-only.js';

// Bus events that carry nothing the event model needs beyond what other events already say.
const QUIET = new Set([
  'server.connected',
  'server.heartbeat',
  'session.diff',
  'session.compacted',
  'file.edited',
  'file.watcher.updated',
  'lsp.updated',
  'lsp.client.diagnostics',
  'message.removed',
  'message.part.removed',
  'installation.updated',
  'todo.updated',
  'command.executed',
  'storage.write',
  'project.updated',
  'vcs.branch.updated',
]);

/** Per-stream state of the opencode server event decoder. */
export interface OpencodeServerState {
  /** Role of each message id (user parts are the prompt, assistant parts the answer). */
  roles: Map<string, string>;
  /** Part type of each part id, to route `message.part.delta` to text or reasoning. */
  partTypes: Map<string, string>;
  busy: boolean;
  error: ReturnType<typeof errorInfo> | undefined;
}

/** Fresh state for one event stream. */
export function createOpencodeServerState(): OpencodeServerState {
  return { roles: new Map(), partTypes: new Map(), busy: false, error: undefined };
}

/** True for a server bus event (`{type, properties}`, with an `evt_` id in 1.18). */
export function isServerEvent(record: Record<string, unknown>): boolean {
  return asRecord(record.properties) !== undefined && typeof record.type === 'string' && !('part' in record);
}

/**
 * Decode one opencode server bus event (`GET /event`, NOTES.md §4 and the 1.18.5 capture).
 * Parts stream as `message.part.delta` (live deltas) and `message.part.updated` (a text or
 * reasoning part with `time.end` is final); tool parts move pending -> running ->
 * completed/error; `session.idle` after `busy` settles the run.
 */
export function decodeServerEvent(
  core: RunCore,
  state: OpencodeServerState,
  record: Record<string, unknown>,
  line: number,
  raw: string,
): void {
  const type = str(record.type) ?? '';
  const props = asRecord(record.properties) ?? {};
  switch (type) {
    case 'session.updated': {
      const info = asRecord(props.info);
      const id = str(info?.id) ?? str(props.sessionID);
      const model = str(asRecord(info?.model)?.id);
      if (id) core.identify(definedOnly({ nativeSessionId: id, model: model || undefined }));
      return;
    }
    case 'message.updated': {
      const info = asRecord(props.info);
      const id = str(info?.id);
      const role = str(info?.role);
      if (id && role) state.roles.set(id, role);
      return;
    }
    case 'message.part.updated':
      return partUpdated(core, state, asRecord(props.part), line, raw);
    case 'message.part.delta': {
      const partId = str(props.partID);
      const delta = str(props.delta);
      if (!partId || delta === undefined || props.field !== 'text') return;
      const partType = state.partTypes.get(partId);
      if (partType === 'text') core.emit('assistant.message.delta', { messageId: partId, delta }, 'native');
      else if (partType === 'reasoning')
        core.emit('assistant.reasoning.delta', { reasoningId: partId, delta }, 'native');
      return;
    }
    case 'session.status': {
      const status = str(asRecord(props.status)?.type);
      if (status === 'busy') state.busy = true;
      else if (status === 'retry')
        core.emit(
          'recovery.started',
          { strategy: 'retry', reason: str(asRecord(props.status)?.message) ?? 'provider retry' },
          'native',
        );
      return;
    }
    case 'session.idle':
      if (!state.busy) return;
      if (state.error) core.failTask('provider', state.error, 'native');
      else core.completeTask('native');
      return;
    case 'session.error': {
      state.error = errorInfo(props.error);
      core.emit('error.raised', { error: state.error }, 'native', { status: 'active' });
      return;
    }
    default:
      if (QUIET.has(type) || type.startsWith('permission.')) return;
      core.diagnostic(
        'MINICODE_E_NATIVE_UNKNOWN_RECORD',
        `unknown opencode server event ${JSON.stringify(type)}; skipped`,
        { line, raw },
      );
  }
}

function partUpdated(
  core: RunCore,
  state: OpencodeServerState,
  part: Record<string, unknown> | undefined,
  line: number,
  raw: string,
): void {
  const id = str(part?.id);
  const type = str(part?.type);
  if (!part || !id || !type)
    return core.diagnostic('MINICODE_E_NATIVE_BAD_RECORD', 'message.part.updated without a part id or type', {
      line,
      raw,
    });
  state.partTypes.set(id, type);
  const role = state.roles.get(str(part.messageID) ?? '');
  const finished = asRecord(part.time)?.end !== undefined;
  switch (type) {
    case 'text':
      if (role === 'user') core.emit('user.message.received', { messageId: id, text: str(part.text) ?? '' }, 'native');
      else if (finished)
        core.emit('assistant.message.completed', { messageId: id, text: str(part.text) ?? '' }, 'native');
      return;
    case 'reasoning':
      if (finished) {
        const text = str(part.text);
        core.emit('assistant.reasoning.completed', definedOnly({ reasoningId: id, text: text || undefined }), 'native');
      }
      return;
    case 'tool':
      return toolPart(core, part, line, raw);
    case 'step-finish':
      return reportStepUsage(core, part);
    case 'step-start':
    case 'snapshot':
    case 'patch':
    case 'file':
    case 'agent':
    case 'compaction':
    case 'retry':
      return;
    default:
      core.diagnostic(
        'MINICODE_E_NATIVE_UNKNOWN_RECORD',
        `unknown opencode part type ${JSON.stringify(type)}; skipped`,
        { line, raw },
      );
  }
}
