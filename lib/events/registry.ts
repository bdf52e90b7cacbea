import type { Severity, Status, Visibility } from './enums.js';
import type { EventType } from './payloads.js';

/** What the pipeline needs to know about one event type besides its payload. */
export interface EventTypeInfo {
  /** Stored in LMDB and replayed; live events (deltas, progress) are not. */
  readonly durable: boolean;
  /** Default projection modes. */
  readonly visibility: readonly Visibility[];
  /** Status used when the producer gives none. */
  readonly status: Status;
  /** Severity used when the producer gives none. */
  readonly severity: Severity;
}

const MACHINE_DEBUG: readonly Visibility[] = ['machine', 'debug'];
const NORMAL: readonly Visibility[] = ['normal', 'verbose', 'debug', 'machine'];
const VERBOSE: readonly Visibility[] = ['verbose', 'debug', 'machine'];
const LIVE: readonly Visibility[] = ['normal', 'verbose', 'debug'];

function info(
  durable: boolean,
  visibility: readonly Visibility[],
  status: Status,
  severity: Severity = 'info',
): EventTypeInfo {
  return { durable, visibility, status, severity };
}

/**
 * Durability and default visibility of every event type (seed output-event-model §3, §6).
 * Durable: lifecycle terminals, final semantic content, compact evidence. Live: deltas,
 * progress. Machine output never depends on scraping human text, so every durable type is
 * visible to `machine`.
 */
export const EVENT_REGISTRY: Readonly<Record<EventType, EventTypeInfo>> = {
  'session.started': info(true, MACHINE_DEBUG, 'started'),
  'session.ended': info(true, MACHINE_DEBUG, 'completed'),
  'user.message.received': info(true, NORMAL, 'completed'),
  'user.approval.requested': info(true, NORMAL, 'started'),
  'user.approval.settled': info(true, NORMAL, 'completed'),
  'task.started': info(true, NORMAL, 'started'),
  'task.progress': info(false, LIVE, 'active'),
  'task.completed': info(true, NORMAL, 'completed'),
  'task.failed': info(true, NORMAL, 'failed', 'error'),
  'task.cancelled': info(true, NORMAL, 'cancelled', 'warning'),
  'plan.created': info(true, NORMAL, 'completed'),
  'plan.updated': info(true, NORMAL, 'completed'),
  'plan.step.started': info(true, VERBOSE, 'started'),
  'plan.step.completed': info(true, VERBOSE, 'completed'),
  'assistant.message.delta': info(false, LIVE, 'active'),
  'assistant.message.completed': info(true, NORMAL, 'completed'),
  'assistant.message.truncated': info(true, NORMAL, 'partial', 'warning'),
  'assistant.reasoning.delta': info(false, ['verbose', 'debug'], 'active'),
  'assistant.reasoning.completed': info(true, VERBOSE, 'completed'),
  'assistant.tool_call.started': info(false, ['debug'], 'started'),
  'assistant.tool_call.delta': info(false, ['debug'], 'active'),
  'assistant.tool_call.completed': info(true, VERBOSE, 'completed'),
  'model.response.started': info(true, MACHINE_DEBUG, 'started'),
  'model.response.completed': info(true, MACHINE_DEBUG, 'completed'),
  'agent.session.identified': info(true, MACHINE_DEBUG, 'completed'),
  'agent.handoff': info(true, NORMAL, 'completed', 'warning'),
  'context.compacted': info(true, VERBOSE, 'completed'),
  'tool.started': info(true, NORMAL, 'started'),
  'tool.progress': info(false, LIVE, 'active'),
  'tool.completed': info(true, NORMAL, 'completed'),
  'tool.failed': info(true, NORMAL, 'failed', 'error'),
  'tool.denied': info(true, NORMAL, 'denied', 'warning'),
  'tool.cancelled': info(true, NORMAL, 'cancelled', 'warning'),
  'file.changed': info(true, NORMAL, 'completed'),
  'test.completed': info(true, NORMAL, 'completed'),
  'finding.detected': info(true, NORMAL, 'completed'),
  'result.produced': info(true, NORMAL, 'completed'),
  'checkpoint.created': info(true, VERBOSE, 'completed'),
  'diagnostic.raised': info(true, ['debug', 'machine'], 'completed', 'warning'),
  'error.raised': info(true, NORMAL, 'failed', 'error'),
  'recovery.started': info(true, VERBOSE, 'started', 'warning'),
  'recovery.completed': info(true, VERBOSE, 'recovered'),
  'recovery.failed': info(true, NORMAL, 'failed', 'error'),
  'usage.reported': info(true, MACHINE_DEBUG, 'completed'),
  'limit.reached': info(true, NORMAL, 'completed', 'warning'),
  'hook.completed': info(true, VERBOSE, 'completed'),
  'hook.failed': info(true, NORMAL, 'failed', 'warning'),
};
