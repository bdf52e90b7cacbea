import type { PayloadOf } from '../events/index.js';
import { createLineFramer } from '../framing/lines.js';
import type { DecoderOptions } from '../decode/types.js';
import { createRunCore } from './run-core.js';
import type { SettlingNativeDecoder } from './settling.js';
import { excerpt, matchLimitWording, oneLine, stripAnsi } from './text.js';
import { definedOnly } from '../defined-only.js';

/** Longest transcript tail the terminal decoder keeps for its final message, in characters. */
export const TERMINAL_MESSAGE_CHARS = 4000;

/**
 * The general decoder for an agent that only prints text (seed: "a native terminal adapter
 * that has no decoder of its own gets a general one"). Output lines are live
 * `assistant.message.delta` events; limit wording on stdout or stderr ("usage limit", "quota
 * exceeded", "rate limit", "try again in 5 minutes") becomes one `limit.reached` per kind with
 * fidelity `inferred`; the exit status decides the outcome (0 completed, otherwise failed,
 * with a usage-quota error when limit wording was seen). On a clean exit the transcript's tail
 * becomes the final message (`inferred`: text is not a structured message).
 */
export function createTerminalDecoder(options: DecoderOptions): SettlingNativeDecoder {
  const core = createRunCore({ agent: 'terminal', onEvent: options.onEvent });
  const maxLineLength = options.maxFrameBytes;
  const limits = new Map<string, PayloadOf<'limit.reached'>>();
  let tail: string[] = [];
  let tailLength = 0;

  function onText(text: string, fromStdout: boolean): void {
    const plain = stripAnsi(text);
    const limit = matchLimitWording(plain);
    if (limit && !limits.has(limit.kind)) {
      const payload: PayloadOf<'limit.reached'> = { kind: limit.kind, message: oneLine(plain.trim(), 300) };
      if (limit.retryAfterMs !== undefined) payload.retryAfterMs = limit.retryAfterMs;
      limits.set(limit.kind, payload);
      core.emit('limit.reached', payload, 'inferred');
    }
    if (!fromStdout) return;
    core.emit('assistant.message.delta', { messageId: 'terminal-output', delta: `${text}\n` }, 'inferred');
    tail.push(text);
    tailLength += text.length + 1;
    if (tailLength > TERMINAL_MESSAGE_CHARS * 4) {
      const joined = tail.join('\n').slice(-TERMINAL_MESSAGE_CHARS * 2);
      tail = [joined];
      tailLength = joined.length;
    }
  }

  const lengthOption = maxLineLength === undefined ? {} : { maxLineLength };
  const onOverflow = (line: number, length: number) =>
    core.diagnostic(
      'MINICODE_E_NATIVE_LINE_TOO_LONG',
      `line of ${length} characters exceeds the frame limit; skipped`,
      { line },
    );
  const out = createLineFramer({ ...lengthOption, onOverflow, onLine: (line) => onText(line, true) });
  const err = createLineFramer({ ...lengthOption, onOverflow, onLine: (line) => onText(line, false) });

  return {
    feed(chunk) {
      if (!core.taskStarted) core.startTask('synthetic');
      out.feed(chunk);
    },
    end() {
      out.end();
      err.end();
    },
    stderr(text) {
      core.stderr(text);
      err.feed(text);
    },
    exit(code, signal) {
      if (core.settled) return;
      out.end();
      err.end();
      if (code === 0 && signal === null) {
        const text = stripAnsi(tail.join('\n')).trim();
        if (text)
          core.emit(
            'assistant.message.completed',
            { messageId: 'terminal-output', text: excerpt(text, TERMINAL_MESSAGE_CHARS) },
            'inferred',
          );
        core.completeTask('synthetic');
        return;
      }
      const limit = limits.get('usage-quota') ?? limits.get('rate-limit');
      if (limit) {
        core.failTask(
          'provider',
          definedOnly({
            category: 'PROVIDER_ERROR',
            code: `terminal:${limit.kind}`,
            message: limit.message ?? limit.kind,
            recoverability: 'RETRYABLE',
            retryAfterMs: limit.retryAfterMs,
          }),
          'inferred',
        );
        return;
      }
      core.exit(code, signal, false);
    },
    cancel: (message) => core.cancelTask('aborted', message, 'synthetic'),
  };
}
