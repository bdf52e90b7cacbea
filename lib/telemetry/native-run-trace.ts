/**
 * Tracing of `minicode run --agent` (a native agent CLI, with its `--fallback` chain). One
 * agent: its `invoke_agent {agent}` span is the root, as for `exec`. A chain: the conventions'
 * shape for several agents working on one task, an `invoke_workflow minicode-run` root with one
 * `invoke_agent {agent}` child per agent that ran (a handed-over agent's span ends with
 * `error.type` MINICODE_E_USAGE_QUOTA). Each agent gets its own span's context as `TRACEPARENT`,
 * so an agent that reads it (Claude Code does) hangs its spans under its own. Loaded only when
 * tracing is on.
 */
import type { OutputEvent } from '../events/index.js';
import type { TracingConfig } from './config.js';
import { createSpanExporter } from './exporter.js';
import { createRunSpans, type RunSpans } from './run-spans.js';
import { newSpanId, newTraceId, nowNs, SpanKind, StatusCode, type SpanData } from './span.js';
import { definedOnly } from '../defined-only.js';

/** A traced native run. */
export interface NativeRunTrace {
  /** Start the span of the `index`th agent of the chain (ending the previous one); returns the agent's extra environment. */
  agentStarted(agent: string, index: number): { TRACEPARENT: string };
  onEvent(event: OutputEvent): void;
  /** End the open spans and send every span (awaited: call before exit). */
  finish(outcome: { ok: boolean; error?: string }): Promise<void>;
}

/** Start tracing a native run of `agents` (the first, then its fallbacks) now. */
export function startNativeRunTrace(
  config: TracingConfig,
  run: {
    env: Readonly<Record<string, string | undefined>>;
    agents: readonly string[];
    model?: string | undefined;
    prompt: string;
    onWarning?: (message: string) => void;
  },
): NativeRunTrace {
  const exporter = createSpanExporter(config, definedOnly({ env: run.env, onWarning: run.onWarning }));
  const workflow: SpanData | undefined =
    run.agents.length > 1
      ? {
          traceId: newTraceId(),
          spanId: newSpanId(),
          name: 'invoke_workflow minicode-run',
          kind: SpanKind.INTERNAL,
          startNs: nowNs(),
          endNs: '',
          attributes: {
            'gen_ai.operation.name': 'invoke_workflow',
            'gen_ai.workflow.name': 'minicode-run',
            'minicode.run.agents': [...run.agents],
          },
          status: { code: StatusCode.UNSET },
        }
      : undefined;
  let current: RunSpans | undefined;
  const start = (agent: string): RunSpans =>
    createRunSpans(
      definedOnly({
        parent: workflow ? { traceId: workflow.traceId, spanId: workflow.spanId } : undefined,
        agentName: agent,
        provider: agent,
        model: run.model || undefined,
        captureContent: config.captureContent,
        prompt: run.prompt,
      }),
    );
  return {
    agentStarted(agent) {
      // The workflow starts the next agent only after the previous one ran out of quota.
      if (current) exporter.add(current.finish({ ok: false, error: 'MINICODE_E_USAGE_QUOTA' }));
      current = start(agent);
      return { TRACEPARENT: current.traceparent };
    },
    onEvent(event) {
      current?.onEvent(event);
      if (workflow && workflow.attributes['gen_ai.conversation.id'] === undefined && event.sessionId)
        workflow.attributes['gen_ai.conversation.id'] = event.sessionId;
    },
    async finish(outcome) {
      if (current) exporter.add(current.finish(outcome));
      current = undefined;
      if (workflow) {
        workflow.endNs = nowNs();
        if (!outcome.ok) {
          workflow.status = definedOnly({ code: StatusCode.ERROR, message: outcome.error || undefined });
          workflow.attributes['error.type'] = outcome.error ?? 'failed';
        }
        exporter.add([workflow]);
      }
      await exporter.shutdown();
    },
  };
}
