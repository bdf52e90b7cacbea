import { RequestError } from '@agentclientprotocol/sdk';
import type { ErrorCode } from '../errors.js';

/**
 * The JSON-RPC errors the ACP server answers with, beside the ones the SDK connection produces
 * itself (-32700 parse error, -32600 invalid request, -32601 method not found, -32602 params that
 * fail the schema). Each carries a stable minicode code in `data.code` (docs/errors.md).
 */
export const AcpErrors = {
  /** -32002 Resource not found, with `data.sessionId` as the spec asks. */
  sessionNotFound(sessionId: string): RequestError {
    return new RequestError(
      -32002,
      `Resource not found: unknown session "${sessionId}" (create one with session/new or load it with session/load)`,
      {
        sessionId,
        code: 'MINICODE_E_SESSION_NOT_FOUND',
      },
    );
  },
  /**
   * A second `session/prompt` while a turn is running. The spec lets a client prompt again only
   * once a turn completes and says nothing more; minicode rejects rather than queue (one turn
   * in flight per session), so the client knows at once.
   */
  sessionBusy(sessionId: string): RequestError {
    return RequestError.invalidRequest(
      { sessionId, code: 'MINICODE_E_SESSION_BUSY' },
      `session "${sessionId}" is already running a prompt turn; wait for its response or send session/cancel`,
    );
  },
  tooManySessions(limit: number): RequestError {
    return RequestError.invalidRequest(
      { limit, code: 'MINICODE_E_BUFFER_LIMIT' },
      `this connection already holds ${limit} sessions`,
    );
  },
  /** -32602 with `data.code` MINICODE_E_USAGE unless `data` names another. */
  invalidParams(message: string, data: Record<string, unknown> = {}): RequestError {
    return RequestError.invalidParams({ code: 'MINICODE_E_USAGE', ...data }, message);
  },
  /** -32000: the provider has no credentials; `authenticate` or the environment must supply them. */
  authRequired(message: string): RequestError {
    return RequestError.authRequired({ code: 'MINICODE_E_MISSING_KEY' }, message);
  },
  internal(code: ErrorCode, message: string): RequestError {
    return RequestError.internalError({ code }, message);
  },
};
