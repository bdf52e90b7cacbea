import type { ErrorCategory, Recoverability } from './events/enums.js';

/**
 * Every error minicode raises has a stable code declared here (STYLE.md habit 5). Tests assert
 * on the code, never on message text. The category and recoverability follow the event model.
 */
export const ERROR_CODES = {
  MINICODE_E_USAGE: { category: 'USER_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 2 },
  MINICODE_E_CONFIG_INVALID: { category: 'CONFIGURATION_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 1 },
  MINICODE_E_CONFIG_UNREADABLE: { category: 'CONFIGURATION_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 1 },
  MINICODE_E_NO_PROVIDER: { category: 'CONFIGURATION_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 1 },
  MINICODE_E_MISSING_KEY: { category: 'CONFIGURATION_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 1 },
  MINICODE_E_UNKNOWN_MODEL: { category: 'CONFIGURATION_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 1 },
  MINICODE_E_INPUT_UNREADABLE: { category: 'FILESYSTEM_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 1 },
  MINICODE_E_UNKNOWN_FORMAT: { category: 'USER_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 2 },
  MINICODE_E_SESSION_NOT_FOUND: { category: 'USER_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 1 },
  MINICODE_E_SESSION_ID_INVALID: { category: 'USER_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 2 },
  MINICODE_E_PROMPT_EMPTY: { category: 'USER_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 2 },
  // 75 is EX_TEMPFAIL (sysexits.h): another batch holds the output directory; try again later.
  MINICODE_E_BATCH_LOCKED: { category: 'USER_ERROR', recoverability: 'RETRYABLE', exitCode: 75 },
  MINICODE_E_STORE: { category: 'FILESYSTEM_ERROR', recoverability: 'UNKNOWN', exitCode: 1 },
  MINICODE_E_AGENT_NOT_INSTALLED: { category: 'CONFIGURATION_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 1 },
  MINICODE_E_PROVIDER: { category: 'PROVIDER_ERROR', recoverability: 'RETRYABLE', exitCode: 1 },
  MINICODE_E_NETWORK: { category: 'NETWORK_ERROR', recoverability: 'RETRYABLE', exitCode: 1 },
  MINICODE_E_BUFFER_LIMIT: { category: 'INTERNAL_ERROR', recoverability: 'FATAL', exitCode: 1 },
  MINICODE_E_WORKER: { category: 'INTERNAL_ERROR', recoverability: 'RETRYABLE', exitCode: 1 },
  MINICODE_E_ABORTED: { category: 'USER_ERROR', recoverability: 'RECOVERABLE', exitCode: 130 },
  MINICODE_E_WORKER_INPUT: { category: 'INTERNAL_ERROR', recoverability: 'FATAL', exitCode: 1 },
  MINICODE_E_BUDGET_EXCEEDED: { category: 'AGENT_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 1 },
  MINICODE_E_TIMEOUT: { category: 'AGENT_ERROR', recoverability: 'RETRYABLE', exitCode: 1 },
  MINICODE_E_MAX_STEPS: { category: 'AGENT_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 1 },
  MINICODE_E_BUSY: { category: 'AGENT_ERROR', recoverability: 'RETRYABLE', exitCode: 1 },
  MINICODE_E_CONTEXT_LENGTH: { category: 'MODEL_ERROR', recoverability: 'RECOVERABLE', exitCode: 1 },
  MINICODE_E_CHECKPOINT: { category: 'FILESYSTEM_ERROR', recoverability: 'RECOVERABLE', exitCode: 1 },
  MINICODE_E_NO_CHECKPOINT: { category: 'USER_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 1 },
  MINICODE_E_CHECKPOINT_NOT_FOUND: { category: 'USER_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 1 },
  MINICODE_E_NOTHING_TO_UNDO: { category: 'USER_ERROR', recoverability: 'ACTION_REQUIRED', exitCode: 1 },
  MINICODE_E_INTERNAL: { category: 'INTERNAL_ERROR', recoverability: 'FATAL', exitCode: 1 },
} as const satisfies Record<string, { category: ErrorCategory; recoverability: Recoverability; exitCode: number }>;

/** A stable error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Plain, cloneable form of an error: what crosses worker and process boundaries. */
export interface PlainError {
  code: string;
  message: string;
  data?: unknown;
}

/** An error with a stable code, a category, an optional next action and the exit code it maps to. */
export class MinicodeError extends Error {
  readonly code: ErrorCode;
  readonly category: ErrorCategory;
  readonly recoverability: Recoverability;
  readonly exitCode: number;
  readonly action: string | undefined;
  readonly data: unknown;

  constructor(code: ErrorCode, message: string, options: { action?: string; data?: unknown; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MinicodeError';
    this.code = code;
    const spec = ERROR_CODES[code];
    this.category = spec.category;
    this.recoverability = spec.recoverability;
    this.exitCode = spec.exitCode;
    this.action = options.action;
    this.data = options.data;
  }

  /** The plain form, for `structuredClone` and JSON. */
  toPlain(): PlainError {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** Turn anything thrown into a plain coded error (unknown throws become MINICODE_E_INTERNAL). */
export function toPlainError(error: unknown): PlainError {
  if (error instanceof MinicodeError) return error.toPlain();
  if (error && typeof error === 'object' && 'code' in error && typeof (error as { code: unknown }).code === 'string') {
    return { code: (error as { code: string }).code, message: String((error as { message?: unknown }).message ?? '') };
  }
  return { code: 'MINICODE_E_INTERNAL', message: error instanceof Error ? error.message : String(error) };
}

/** True when `error` is a MinicodeError with the given code. */
export function hasCode(error: unknown, code: ErrorCode): error is MinicodeError {
  return error instanceof MinicodeError && error.code === code;
}
