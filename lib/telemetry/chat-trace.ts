/**
 * Tracing of `minicode chat`: one trace per turn, its `invoke_agent minicode` span the root
 * (with the turn's `chat` and `execute_tool` children, see run-spans.ts), every turn of a
 * session sharing `gen_ai.conversation.id` = the session id. A turn is one invocation of the
 * agent; a span per session would stay open, and unseen by the backend, for as long as the
 * terminal does. Each turn's spans go to the exporter when the turn settles (sent within its
 * flush interval); `shutdown` sends the rest before exit. Loaded only when tracing is on.
 */
import type { OutputEvent } from '../events/index.js';
import type { TracingConfig } from './config.js';
import { createSpanExporter } from './exporter.js';
import { createRunSpans } from './run-spans.js';
import { definedOnly } from '../defined-only.js';

/** One traced turn. */
export interface TurnTrace {
  onEvent(event: OutputEvent): void;
  /** End the turn's spans and queue them for export. */
  end(outcome: { ok: boolean; error?: string }): void;
}

/** A traced chat session. */
export interface ChatTrace {
  /** Start the span of the next turn now, with the provider and model the turn uses (`/model` may have changed them). */
  turn(prompt: string, turn: number, provider?: { format: string; model: string }): TurnTrace;
  /** Send every span still buffered (awaited: call before exit). */
  shutdown(): Promise<void>;
}

/** Start tracing a chat session. */
export function startChatTrace(
  config: TracingConfig,
  chat: {
    env: Readonly<Record<string, string | undefined>>;
    provider?: string;
    model?: string;
    onWarning?: (message: string) => void;
  },
): ChatTrace {
  const exporter = createSpanExporter(config, definedOnly({ env: chat.env, onWarning: chat.onWarning }));
  return {
    turn(prompt, turn, provider) {
      const format = provider?.format ?? chat.provider;
      const model = provider?.model ?? chat.model;
      const spans = createRunSpans(
        definedOnly({
          agentName: 'minicode',
          provider: format || undefined,
          model: model || undefined,
          captureContent: config.captureContent,
          prompt,
          attributes: { 'minicode.chat.turn': turn },
        }),
      );
      return {
        onEvent: (event) => spans.onEvent(event),
        end: (outcome) => exporter.add(spans.finish(outcome)),
      };
    },
    async shutdown() {
      await exporter.shutdown();
    },
  };
}
