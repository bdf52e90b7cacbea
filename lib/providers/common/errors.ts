/**
 * Provider error classification shared by the in-band decoders and `http-errors.ts`: the
 * provider's own error type / code / status become an `ErrorInfo` (category, stable code,
 * recoverability) plus the `limit.reached` kind when the error is a limit.
 */
import type { ErrorInfo, Recoverability } from '../../events/index.js';

/** The `limit.reached` kinds an error can imply. */
export type LimitKind = 'rate-limit' | 'overloaded' | 'usage-quota' | 'context-length';

/** What the provider said about an error, as far as it said it. */
export interface RawProviderError {
  /** Provider error type (`overloaded_error`, `server_error`, `RESOURCE_EXHAUSTED`, ...). */
  type?: string | undefined;
  /** Provider error code when distinct from the type (`insufficient_quota`, `tool_use_failed`, 429). */
  code?: string | number | undefined;
  message?: string | undefined;
  httpStatus?: number | undefined;
  retryAfterMs?: number | undefined;
}

const OVERLOADED = /overloaded|unavailable|capacity/i;
const RATE_LIMIT = /rate_limit|rate-limit|ratelimit|too_many_requests|resource_exhausted/i;
const QUOTA = /insufficient_quota|quota|billing|spend_limit|credit/i;
const CONTEXT = /context_length|context_window|too_long|request_too_large|max_tokens_exceeded/i;
const MODEL = /tool_use_failed|invalid_tool|malformed_function_call|content_filter|refusal|invalid_prompt/i;
const RETRYABLE =
  /server_error|api_error|internal|timeout|overloaded|unavailable|rate_limit|resource_exhausted|deadline/i;

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** Classify a provider error into an `ErrorInfo` and, for limits, the `limit.reached` kind. */
export function classifyProviderError(raw: RawProviderError): { error: ErrorInfo; limit: LimitKind | undefined } {
  const type = str(raw.type);
  const code = str(raw.code);
  const status = raw.httpStatus;
  const both = `${type ?? ''} ${code ?? ''}`;
  let limit: LimitKind | undefined;
  if (QUOTA.test(both) && !RATE_LIMIT.test(type ?? '')) limit = 'usage-quota';
  else if (OVERLOADED.test(both) || status === 529 || status === 503) limit = 'overloaded';
  else if (RATE_LIMIT.test(both) || status === 429) limit = 'rate-limit';
  else if (CONTEXT.test(both) || status === 413) limit = 'context-length';

  let recoverability: Recoverability;
  if (limit === 'usage-quota' || limit === 'context-length') recoverability = 'ACTION_REQUIRED';
  else if (limit === 'overloaded' || limit === 'rate-limit') recoverability = 'RETRYABLE';
  else if (status !== undefined && (status >= 500 || status === 408 || status === 409)) recoverability = 'RETRYABLE';
  else if (status !== undefined && status >= 400) recoverability = 'ACTION_REQUIRED';
  else if (RETRYABLE.test(both)) recoverability = 'RETRYABLE';
  else if (MODEL.test(both)) recoverability = 'RETRYABLE';
  else recoverability = 'UNKNOWN';

  const category = MODEL.test(both) ? 'MODEL_ERROR' : 'PROVIDER_ERROR';
  const error: ErrorInfo = {
    category,
    code: type ?? code ?? (status !== undefined ? `http_${status}` : 'provider_error'),
    message: raw.message ?? type ?? 'provider error',
    recoverability,
  };
  if (code !== undefined && code !== error.code) error.providerCode = code;
  else if (type !== undefined) error.providerCode = type;
  if (status !== undefined) error.httpStatus = status;
  if (raw.retryAfterMs !== undefined) error.retryAfterMs = raw.retryAfterMs;
  return { error, limit };
}

/** Read `{type, code, message, status}` out of an `error` value of any provider shape (object or string). */
export function readErrorObject(value: unknown, fallbackType?: string): RawProviderError {
  if (typeof value === 'string') return { type: fallbackType, message: value };
  if (!value || typeof value !== 'object') return { type: fallbackType, message: 'provider error' };
  const e = value as Record<string, unknown>;
  const statusCode =
    typeof e.status_code === 'number'
      ? e.status_code
      : typeof e.code === 'number' && e.code >= 100 && e.code < 600
        ? e.code
        : undefined;
  return {
    type: str(e.type) ?? str(e.status) ?? fallbackType,
    code: str(e.code),
    message: str(e.message),
    httpStatus: statusCode,
  };
}
