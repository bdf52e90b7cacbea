import { z } from 'zod';

/** The wire schema name (defined in schema-name.ts, without zod). */
export { SCHEMA_NAME } from './schema-name.js';

/** Lifecycle status of the fact an event reports (docs/event-model.md). */
export const Status = z.enum([
  'started',
  'active',
  'completed',
  'failed',
  'denied',
  'cancelled',
  'interrupted',
  'partial',
  'recovered',
]);
export type Status = z.infer<typeof Status>;

/** How serious an event is; independent of its status (`denied` is a status, not a severity). */
export const Severity = z.enum(['info', 'warning', 'error', 'critical']);
export type Severity = z.infer<typeof Severity>;

/** Who produced the fact: the kernel/runtime, the app layer, or a derived projection. */
export const Source = z.enum(['runtime', 'app', 'derived']);
export type Source = z.infer<typeof Source>;

/** Projection modes an event is shown in; an event may belong to several. */
export const Visibility = z.enum(['normal', 'verbose', 'debug', 'machine']);
export type Visibility = z.infer<typeof Visibility>;

/**
 * How confidently a decoded event was observed. A label is never upgraded on the way through:
 * `native` is a documented structured record, `inferred` a heuristic (terminal text matching),
 * `synthetic` something minicode generated itself.
 */
export const Fidelity = z.enum(['native', 'inferred', 'synthetic']);
export type Fidelity = z.infer<typeof Fidelity>;

/** The ten error categories of the event model. */
export const ErrorCategory = z.enum([
  'USER_ERROR',
  'CONFIGURATION_ERROR',
  'PERMISSION_ERROR',
  'TOOL_ERROR',
  'FILESYSTEM_ERROR',
  'NETWORK_ERROR',
  'PROVIDER_ERROR',
  'MODEL_ERROR',
  'AGENT_ERROR',
  'INTERNAL_ERROR',
]);
export type ErrorCategory = z.infer<typeof ErrorCategory>;

/** Recoverability is a separate axis from the category. */
export const Recoverability = z.enum(['RECOVERABLE', 'RETRYABLE', 'ACTION_REQUIRED', 'FATAL', 'UNKNOWN']);
export type Recoverability = z.infer<typeof Recoverability>;

/** The one reason a run stopped (control-plane termination contract). */
export const TerminationReason = z.enum([
  'completed',
  'max_steps_exceeded',
  'timeout',
  'budget_exceeded',
  'aborted',
  'provider',
  'busy',
  'result_invalid',
  'hook_stopped',
]);
export type TerminationReason = z.infer<typeof TerminationReason>;

/** Outcome of a whole run or session as the reducer and the store see it. */
export const RunOutcome = z.enum(['completed', 'failed', 'cancelled', 'interrupted', 'partial']);
export type RunOutcome = z.infer<typeof RunOutcome>;

/** Decision on an approval request; `cancelled` includes the forced `parent-ended` close. */
export const ApprovalOutcome = z.enum(['allow', 'allow-always', 'deny', 'cancelled']);
export type ApprovalOutcome = z.infer<typeof ApprovalOutcome>;

/** Provider stop reasons normalised across formats; the raw value is kept beside it. */
export const StopReason = z.enum([
  'end_turn',
  'tool_use',
  'max_tokens',
  'stop_sequence',
  'content_filter',
  'refusal',
  'pause',
  'error',
  'other',
]);
export type StopReason = z.infer<typeof StopReason>;
