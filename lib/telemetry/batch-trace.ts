/**
 * A batch's trace: one `invoke_workflow minicode-batch` span for the whole batch, under which
 * each line's run hangs its `invoke_agent` span (built where the run runs, on the pool or here,
 * and handed back as data), and one exporter for the process. `finish` ends the batch span and
 * flushes every span before the command exits.
 */
import type { TracingConfig } from './config.js';
import { createSpanExporter, type ExportStats } from './exporter.js';
import {
  newSpanId,
  newTraceId,
  nowNs,
  SpanKind,
  StatusCode,
  type AttributeValue,
  type SpanData,
  type TraceParent,
} from './span.js';
import { definedOnly } from '../defined-only.js';

/** A batch being traced. */
export interface BatchTrace {
  /** The batch span: every line's run span is its child. */
  readonly parent: TraceParent;
  readonly captureContent: boolean;
  addSpans(spans: readonly SpanData[]): void;
  /** End the batch span with the summary's counts and flush everything. */
  finish(outcome: { ok: boolean; attributes: Record<string, AttributeValue> }): Promise<ExportStats>;
}

/** Start the batch span now. */
export function startBatchTrace(
  config: TracingConfig,
  options: {
    env: Readonly<Record<string, string | undefined>>;
    attributes: Record<string, AttributeValue>;
    onWarning?: (message: string) => void;
  },
): BatchTrace {
  const exporter = createSpanExporter(config, definedOnly({ env: options.env, onWarning: options.onWarning }));
  const span: SpanData = {
    traceId: newTraceId(),
    spanId: newSpanId(),
    name: 'invoke_workflow minicode-batch',
    kind: SpanKind.INTERNAL,
    startNs: nowNs(),
    endNs: '',
    attributes: {
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.workflow.name': 'minicode-batch',
      ...options.attributes,
    },
    status: { code: StatusCode.UNSET },
  };
  return {
    parent: { traceId: span.traceId, spanId: span.spanId },
    captureContent: config.captureContent,
    addSpans: (spans) => exporter.add(spans),
    async finish(outcome) {
      span.endNs = nowNs();
      Object.assign(span.attributes, outcome.attributes);
      if (!outcome.ok) span.status = { code: StatusCode.ERROR };
      exporter.add([span]);
      return exporter.shutdown();
    },
  };
}
