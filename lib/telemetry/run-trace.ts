/**
 * Tracing of one command's run (`exec`): the run's `invoke_agent` span is the root of a new
 * trace, with its `chat` and `execute_tool` children (see run-spans.ts), exported and flushed
 * when the run settles. Loaded only when tracing is on.
 */
import type { OutputEvent } from '../events/index.js';
import type { TracingConfig } from './config.js';
import { createSpanExporter } from './exporter.js';
import { createRunSpans } from './run-spans.js';
import { definedOnly } from '../defined-only.js';

/** A traced run. */
export interface RunTrace {
  onEvent(event: OutputEvent): void;
  /** End the run span and send every span (awaited: call before exit). */
  finish(outcome: { ok: boolean; error?: string }): Promise<void>;
}

/** Start tracing a run now. */
export function startRunTrace(
  config: TracingConfig,
  run: {
    env: Readonly<Record<string, string | undefined>>;
    provider?: string;
    model?: string;
    prompt: string;
    onWarning?: (message: string) => void;
  },
): RunTrace {
  const exporter = createSpanExporter(config, definedOnly({ env: run.env, onWarning: run.onWarning }));
  const spans = createRunSpans(
    definedOnly({
      agentName: 'minicode',
      provider: run.provider || undefined,
      model: run.model || undefined,
      captureContent: config.captureContent,
      prompt: run.prompt,
    }),
  );
  return {
    onEvent: (event) => spans.onEvent(event),
    async finish(outcome) {
      exporter.add(spans.finish(outcome));
      await exporter.shutdown();
    },
  };
}
