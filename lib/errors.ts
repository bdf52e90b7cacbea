import type { ErrorCategory, Recoverability } from './events/enums.js';
import { neutralise } from './safe-text.js';

/** What a code thrown as a {@link MinicodeError} maps to: event-model category, recoverability, exit code. */
interface ThrownCodeSpec {
  category: ErrorCategory;
  recoverability: Recoverability;
  exitCode: number;
  /** One line: what went wrong. */
  meaning: string;
}

/** A code that only travels inside events or records (a diagnostic, a run's error, a batch record). */
interface ReportedCodeSpec {
  /** One line: what went wrong. */
  meaning: string;
}

/**
 * Every code minicode emits, declared once, in alphabetical order: `MINICODE_E_*` for errors,
 * `MINICODE_W_*` for warnings. Codes with an exit code are thrown as {@link MinicodeError}; the
 * others travel inside `diagnostic.raised` events, a run's error or a batch record. Tests assert
 * on these codes, never on message text. A test checks that every code the sources spell is
 * declared here and that docs/errors.md lists them (regenerate it with
 * `npm run build && node dist/scripts/gen-error-codes.js`).
 */
export const ERROR_CODES = {
  MINICODE_E_ABORTED: {
    category: 'USER_ERROR',
    recoverability: 'RECOVERABLE',
    exitCode: 130,
    meaning: 'the run or task was cancelled (Ctrl+C, Esc, or a parent signal)',
  },
  MINICODE_E_AGENT: { meaning: 'a native agent in a batch ended without completing and without an error of its own' },
  MINICODE_E_AGENT_DEFINITION: {
    meaning:
      'an agent definition file (agents/*.md) could not be read or has no usable name or description; it was skipped',
  },
  MINICODE_E_AGENT_NOT_INSTALLED: {
    category: 'CONFIGURATION_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'the native agent CLI is not on PATH (or its override variable does not name an executable)',
  },
  MINICODE_E_BATCH_ISOLATE: {
    category: 'CONFIGURATION_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning:
      "a batch line's isolated workspace (--isolate worktree|copy) could not be made (not a git repository, git failed, copy failed)",
  },
  MINICODE_E_BATCH_LINE_JSON: { meaning: 'a batch input line is not JSON' },
  MINICODE_E_BATCH_LINE_SHAPE: { meaning: 'a batch input line is JSON but lacks or mistypes a field' },
  // 75 is EX_TEMPFAIL (sysexits.h): another batch holds the output directory; try again later.
  MINICODE_E_BATCH_LOCKED: {
    category: 'USER_ERROR',
    recoverability: 'RETRYABLE',
    exitCode: 75,
    meaning: 'another batch process holds the output directory (batch.lock)',
  },
  MINICODE_E_BATCH_OUTPUT: {
    category: 'FILESYSTEM_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'the batch output directory (--out) cannot be written: a full disk, a read-only or failing file system',
  },
  MINICODE_E_BATCH_REPORT: {
    category: 'USER_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning:
      'the folder given to batch report is not a batch output directory (no summary.json, results.jsonl or errors.jsonl)',
  },
  MINICODE_E_BUDGET_EXCEEDED: {
    category: 'AGENT_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'the run or session went over its cost budget (or its cost is unknown under --budget-strict)',
  },
  MINICODE_E_BUFFER_LIMIT: {
    category: 'INTERNAL_ERROR',
    recoverability: 'FATAL',
    exitCode: 1,
    meaning: 'a bounded buffer or table is full (e.g. too many ACP sessions on one connection)',
  },
  MINICODE_E_BUSY: {
    category: 'AGENT_ERROR',
    recoverability: 'RETRYABLE',
    exitCode: 1,
    meaning: 'a run was started while another run of the same agent was in progress',
  },
  MINICODE_E_CHECKPOINT: {
    category: 'FILESYSTEM_ERROR',
    recoverability: 'RECOVERABLE',
    exitCode: 1,
    meaning: 'a checkpoint could not be taken or restored (git failed on the private checkpoint store)',
  },
  MINICODE_E_CHECKPOINT_NOT_FOUND: {
    category: 'USER_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'undo --to names no checkpoint of this workspace',
  },
  MINICODE_E_COMPACTION_FALLBACK: {
    meaning: 'the LLM summary for compaction failed; the transcript was folded mechanically instead',
  },
  MINICODE_E_CONFIG_INVALID: {
    category: 'CONFIGURATION_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'a config file is not valid JSON or has an unknown or mistyped field',
  },
  MINICODE_E_CONFIG_UNREADABLE: {
    category: 'CONFIGURATION_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'a config file exists but cannot be read',
  },
  MINICODE_E_CONTEXT_LENGTH: {
    category: 'MODEL_ERROR',
    recoverability: 'RECOVERABLE',
    exitCode: 1,
    meaning: "the request is longer than the model's context window",
  },
  MINICODE_E_DECODE_AFTER_TERMINATOR: { meaning: "data arrived after the provider stream's terminator; ignored" },
  MINICODE_E_DECODE_BAD_JSON: { meaning: 'a provider frame or line whose payload is not valid JSON; skipped' },
  MINICODE_E_DECODE_FRAME_TOO_LARGE: { meaning: 'a provider frame or line larger than maxFrameBytes; dropped' },
  MINICODE_E_DECODE_NO_TERMINATOR: { meaning: 'the provider stream ended without its terminator' },
  MINICODE_E_DECODE_SPLICED_RESPONSE: {
    meaning: 'a second response started inside an unfinished one; the first is abandoned',
  },
  MINICODE_E_DECODE_TEXT_CAPPED: {
    meaning: 'accumulated message text hit maxTextChars; the rest is left out of the final text (deltas still flow)',
  },
  MINICODE_E_DECODE_TOOL_CALL_UNFINISHED: {
    meaning: 'a tool call was still open when the response ended badly; it is never run',
  },
  MINICODE_E_DECODE_TRUNCATED_FRAME: {
    meaning: 'the provider stream ended inside a frame; the partial frame is discarded',
  },
  MINICODE_E_DECODE_UNEXPECTED_SHAPE: {
    meaning: 'a known provider record with a missing or mistyped field, or an unknown block or delta kind',
  },
  MINICODE_E_DECODE_UNKNOWN_EVENT: {
    meaning: 'a provider event name or record type the decoder does not know; skipped',
  },
  MINICODE_E_GRADER: {
    meaning:
      "a batch line's model scorer could not grade: the grader could not be set up or its run did not complete (after the provider's own retries); the scorer fails, the run is not retried",
  },
  MINICODE_E_GRADER_VERDICT: {
    meaning:
      "a batch line's model grader answered something other than one JSON object {score, reasoning} with a whole-number score on the scale; the scorer fails",
  },
  MINICODE_E_HOOK_STOPPED: {
    category: 'USER_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning:
      'a hook stopped the run: a UserPromptSubmit hook blocked the prompt, or a hook answered continue: false (termination reason hook_stopped)',
  },
  MINICODE_E_IMAGE: {
    category: 'USER_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 2,
    meaning:
      'an image cannot be read, is not a PNG, JPEG, GIF or WebP (by its bytes), or is over the size or pixel limit (images are refused, not resized)',
  },
  MINICODE_E_INPUT_UNREADABLE: {
    category: 'FILESYSTEM_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'an input file or cassette is missing, unreadable or malformed',
  },
  MINICODE_E_INTERNAL: {
    category: 'INTERNAL_ERROR',
    recoverability: 'FATAL',
    exitCode: 1,
    meaning: 'an unexpected failure inside minicode (a bug: please report it)',
  },
  MINICODE_E_LINE_TIMEOUT: {
    category: 'AGENT_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning:
      "a batch line did not finish (run, verify and scorers) within its line timeout (--line-timeout, the line's timeout); recorded as line_timeout, never retried",
  },
  MINICODE_E_LOCAL_CONFIG_IGNORED: {
    meaning: 'a project-local config was ignored because --allow-local-config was not given',
  },
  MINICODE_E_MAX_STEPS: {
    category: 'AGENT_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'the run reached its maximum number of steps',
  },
  MINICODE_E_MCP_AUTH: {
    category: 'CONFIGURATION_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning:
      'minicode mcp login could not log in to an MCP server (no OAuth offered, refused, no answer from the browser in time)',
  },
  MINICODE_E_MCP_CONFIG: {
    meaning: 'an mcpServers entry names a ${VAR} that is not set; it expanded to an empty value',
  },
  MINICODE_E_MCP_ENTRY: {
    meaning:
      'an mcpServers entry has a key minicode does not know or support, or a value of the wrong type; that server is skipped and the others start',
  },
  MINICODE_E_MCP_EXITED: { meaning: 'an MCP server exited during the run; its tools fail from then on' },
  MINICODE_E_MCP_NOT_FOUND: {
    category: 'USER_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'minicode mcp get or remove named a server that is not in the config',
  },
  MINICODE_E_MCP_START: {
    meaning: 'an MCP server failed to start or missed its start-up deadline; the run goes on without its tools',
  },
  MINICODE_E_MCP_STDERR: { meaning: 'a line an MCP server wrote on stderr' },
  MINICODE_E_MISSING_DEPENDENCY: {
    category: 'CONFIGURATION_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'an optional package this command needs is not installed',
  },
  MINICODE_E_MISSING_KEY: {
    category: 'CONFIGURATION_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: "the provider's API key variable is not set",
  },
  MINICODE_E_NATIVE_AFTER_SETTLE: {
    meaning: 'a native agent started or ended a tool call after its run settled; ignored',
  },
  MINICODE_E_NATIVE_BAD_APPROVAL: {
    meaning: 'a native agent requested one approval twice, or after its run settled; ignored',
  },
  MINICODE_E_NATIVE_BAD_JSON: { meaning: 'a native agent output line is not valid JSON; skipped' },
  MINICODE_E_NATIVE_BAD_RECORD: {
    meaning: 'a known native agent record lacks a field it needs (id, session, item); skipped',
  },
  MINICODE_E_NATIVE_DECODER_FAULT: {
    meaning: 'the native decoder failed on one record; that record is skipped and decoding goes on',
  },
  MINICODE_E_NATIVE_DUPLICATE_TOOL: {
    meaning: 'a native agent started the same tool call twice; the second start is ignored',
  },
  MINICODE_E_NATIVE_EXIT: { meaning: 'a native agent exited with a non-zero code before its terminal record' },
  MINICODE_E_NATIVE_KILLED: { meaning: 'a native agent was killed by a signal before its terminal record' },
  MINICODE_E_NATIVE_LINE_TOO_LONG: { meaning: 'a native agent output line exceeds the frame limit; skipped' },
  MINICODE_E_NATIVE_NO_TERMINAL: {
    meaning: 'a native agent exited 0 without its terminal record; the run is left unsettled (interrupted)',
  },
  MINICODE_E_NATIVE_REPAIRED_RECORD: {
    meaning: 'a native agent line was not valid JSON and was decoded after replacing placeholders',
  },
  MINICODE_E_NATIVE_SECOND_TERMINAL: {
    meaning: 'a native agent ended a tool call that had already ended; the second end is ignored',
  },
  MINICODE_E_NATIVE_SESSION_CHANGED: { meaning: 'a native agent switched to another session or thread id mid-run' },
  MINICODE_E_NATIVE_UNKNOWN_BLOCK: {
    meaning: 'a native agent message has a content block of an unknown kind; skipped',
  },
  MINICODE_E_NATIVE_UNKNOWN_ITEM: { meaning: 'a native agent item of an unknown type; skipped' },
  MINICODE_E_NATIVE_UNKNOWN_RECORD: {
    meaning: 'a native agent record of an unknown type, or JSON that is not an object; skipped',
  },
  MINICODE_E_NETWORK: {
    category: 'NETWORK_ERROR',
    recoverability: 'RETRYABLE',
    exitCode: 1,
    meaning: 'a server (provider, Redis) could not be reached',
  },
  MINICODE_E_NOTHING_TO_UNDO: {
    category: 'USER_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'no turn of the chosen session changed the workspace',
  },
  MINICODE_E_NO_CHECKPOINT: {
    category: 'USER_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'this workspace has no checkpoints (none taken, or checkpoints are turned off)',
  },
  MINICODE_E_NO_PROVIDER: {
    category: 'CONFIGURATION_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'no provider was chosen and none can be inferred from the environment or config',
  },
  MINICODE_E_NO_VISION: {
    category: 'USER_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 2,
    meaning: 'images were given to a model known to take no image input; refused before any request',
  },
  MINICODE_E_OTEL_CONFIG: {
    category: 'CONFIGURATION_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 2,
    meaning:
      'the OpenTelemetry exporter settings are unusable (OTLP endpoint not an http(s) URL, or a protocol other than http/protobuf or http/json)',
  },
  MINICODE_E_OUTPUT_SCHEMA: {
    category: 'USER_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning:
      "an output schema (--output-schema FILE, a batch line's outputSchema) is not valid JSON, not a JSON Schema ajv can compile (2020-12, 2019-09, draft-07), or does not describe an object",
  },
  MINICODE_E_PROMPT_EMPTY: {
    category: 'USER_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 2,
    meaning: 'the prompt is empty or only whitespace',
  },
  MINICODE_E_PROVIDER: {
    category: 'PROVIDER_ERROR',
    recoverability: 'RETRYABLE',
    exitCode: 1,
    meaning: 'the provider answered with an error, or retries ran out',
  },
  // 65 is EX_DATAERR (sysexits.h): the run ended, but without the typed result it was asked for.
  MINICODE_E_RESULT_INVALID: {
    category: 'MODEL_ERROR',
    recoverability: 'RETRYABLE',
    exitCode: 65,
    meaning:
      'the model never submitted a result matching the output schema within its attempts (termination reason result_invalid)',
  },
  MINICODE_E_SANDBOX_UNAVAILABLE: {
    category: 'CONFIGURATION_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning:
      'a sandboxed mode (--sandbox read-only|workspace-write, the default) was asked for and no sandbox backend works here (install bubblewrap, or pass --sandbox off)',
  },
  MINICODE_E_SESSION_BUSY: { meaning: 'an ACP prompt arrived for a session whose previous prompt is still running' },
  MINICODE_E_SESSION_ID_INVALID: {
    category: 'USER_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 2,
    meaning: 'a session id outside the grammar [A-Za-z0-9._:-]{1,128}',
  },
  MINICODE_E_SESSION_NOT_FOUND: {
    category: 'USER_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'no stored session has that id',
  },
  MINICODE_E_STORE: {
    category: 'FILESYSTEM_ERROR',
    recoverability: 'UNKNOWN',
    exitCode: 1,
    meaning: 'the session store cannot be opened, read or written',
  },
  MINICODE_E_STREAM_BROKEN: { meaning: 'the provider response stream broke mid-way; what arrived is kept' },
  MINICODE_E_STREAM_TRUNCATED: {
    meaning: 'the provider response stream ended before the provider finished it (retryable)',
  },
  MINICODE_E_TIMEOUT: {
    category: 'AGENT_ERROR',
    recoverability: 'RETRYABLE',
    exitCode: 1,
    meaning: 'the run hit its deadline',
  },
  MINICODE_E_UNDO_LIVE: {
    category: 'USER_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'undo was asked for a session whose run is still going in another process (pass --force to undo anyway)',
  },
  MINICODE_E_UNKNOWN_FORMAT: {
    category: 'USER_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 2,
    meaning: 'an input format name that minicode does not decode',
  },
  MINICODE_E_UNKNOWN_MODEL: {
    category: 'CONFIGURATION_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 1,
    meaning: 'no model given, an invalid model name, or a model the endpoint does not serve',
  },
  MINICODE_E_USAGE: {
    category: 'USER_ERROR',
    recoverability: 'ACTION_REQUIRED',
    exitCode: 2,
    meaning: 'a bad command line: unknown command or flag, bad flag value, missing or extra argument',
  },
  MINICODE_E_USAGE_QUOTA: {
    meaning:
      'a native agent reported an exhausted usage quota and its stream ended without a terminal record; the supervisor failed its task (run --fallback hands over)',
  },
  MINICODE_E_WORKER: {
    category: 'INTERNAL_ERROR',
    recoverability: 'RETRYABLE',
    exitCode: 1,
    meaning: 'a worker-pool task crashed, is not built, or returned something that is not a result',
  },
  MINICODE_E_WORKER_INPUT: {
    category: 'INTERNAL_ERROR',
    recoverability: 'FATAL',
    exitCode: 1,
    meaning: 'a worker-pool task was given input it cannot use',
  },
  MINICODE_W_HOOK_IGNORED: {
    meaning:
      'a hooks section names an event minicode does not run or a handler type other than command; that entry is ignored',
  },
  MINICODE_W_HOOK_STOP_LOOP: {
    meaning: 'a Stop hook kept blocking the end of a turn past the limit (3 times); the turn ended anyway',
  },
  MINICODE_W_HOOK_TRANSCRIPT: {
    meaning:
      'the session transcript a hook reads at transcript_path could not be written; the hook ran with transcript_path null',
  },
  MINICODE_W_INSTRUCTIONS_TRUNCATED: {
    meaning:
      'the project instruction files (AGENTS.md and fallbacks) passed their 32 KiB cap: one was cut, later ones left out',
  },
  MINICODE_W_INSTRUCTIONS_UNREADABLE: {
    meaning: 'a project instruction file exists but cannot be read; the run goes on without it',
  },
  MINICODE_W_NATIVE_AGENT_WARNING: {
    meaning: 'a native agent reported a warning of its own (text kept in the message)',
  },
  MINICODE_W_NATIVE_LIMIT_NEAR: { meaning: 'a native agent reported that a usage limit is near' },
} as const satisfies Record<`MINICODE_${'E' | 'W'}_${string}`, ThrownCodeSpec | ReportedCodeSpec>;

/** A stable error code: one of {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** A code that is thrown as a {@link MinicodeError} (it has a category and an exit code). */
export type ThrownErrorCode = {
  [K in ErrorCode]: (typeof ERROR_CODES)[K] extends { exitCode: number } ? K : never;
}[ErrorCode];

/** True when `code` is declared and thrown as a {@link MinicodeError} (it has an exit code). */
export function isThrownCode(code: string): code is ThrownErrorCode {
  return Object.hasOwn(ERROR_CODES, code) && 'exitCode' in ERROR_CODES[code as ErrorCode];
}

/** Plain, cloneable form of an error: what crosses worker and process boundaries. */
export interface PlainError {
  code: string;
  message: string;
  data?: unknown;
}

/** An error with a stable code, a category, an optional next action and the exit code it maps to. */
export class MinicodeError extends Error {
  readonly code: ThrownErrorCode;
  readonly category: ErrorCategory;
  readonly recoverability: Recoverability;
  readonly exitCode: number;
  readonly action: string | undefined;
  readonly data: unknown;

  /**
   * `message` and `action` often quote input (a flag value, a name from a config file, a parser's
   * excerpt): terminal controls in them are shown as visible escapes (lib/safe-text.ts) here,
   * once, so no caller has to remember it and no sink prints them raw.
   */
  constructor(
    code: ThrownErrorCode,
    message: string,
    options: { action?: string; data?: unknown; cause?: unknown } = {},
  ) {
    super(neutralise(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MinicodeError';
    this.code = code;
    const spec: ThrownCodeSpec = ERROR_CODES[code];
    this.category = spec.category;
    this.recoverability = spec.recoverability;
    this.exitCode = spec.exitCode;
    this.action = options.action === undefined ? undefined : neutralise(options.action);
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
export function hasCode(error: unknown, code: ThrownErrorCode): error is MinicodeError {
  return error instanceof MinicodeError && error.code === code;
}
