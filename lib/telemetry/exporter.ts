/**
 * Sends spans to the OTLP/HTTP endpoint with the official OpenTelemetry exporters
 * (`@opentelemetry/exporter-trace-otlp-proto` or `-http`, the 0.2xx line that runs on Node 20),
 * which do the encoding, the HTTP transport, retries on 429/502/503/504 and the
 * `OTEL_EXPORTER_OTLP_COMPRESSION` / `_TIMEOUT` variables. Their import costs most of a second,
 * so it starts when the exporter is created (tracing is on) and runs beside the traced work;
 * spans added meanwhile wait in the buffer.
 *
 * What stays ours: the spans are plain data built on any thread ({@link SpanData}), turned into
 * the SDK's `ReadableSpan` shape only here; every string that leaves (attribute values, span
 * names, status messages) goes through the secret scrubber first, with the environment's
 * credential values; spans are posted in batches of at most {@link MAX_BATCH}, at once when a
 * batch fills, otherwise every {@link FLUSH_MS} ms and at shutdown; a failed export is
 * reported once and never fails the run; the buffer is bounded ({@link MAX_BUFFERED}), the
 * oldest spans dropped and counted.
 */
import type { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { outputRedactor } from '../artefacts.js';
import { VERSION } from '../version.js';
import type { TracingConfig } from './config.js';
import type { AttributeValue, SpanData } from './span.js';
import { definedOnly } from '../defined-only.js';

/** Spans per request. */
export const MAX_BATCH = 512;
/** Spans held while the endpoint is slow or down. */
export const MAX_BUFFERED = 20_000;
/** Interval of background flushes. */
export const FLUSH_MS = 2000;
/** One request's deadline (retries included). */
export const REQUEST_TIMEOUT_MS = 10_000;
/** Requests in flight at once (the official exporter refuses more than its own limit, 30). */
const MAX_IN_FLIGHT = 4;

/** What an exporter did. */
export interface ExportStats {
  exported: number;
  failed: number;
  dropped: number;
}

/** A running exporter. */
export interface SpanExporter {
  add(spans: readonly SpanData[]): void;
  /** Send everything buffered and wait for it. */
  flush(): Promise<void>;
  /** Flush, stop the timer and the transport, return the counts. */
  shutdown(): Promise<ExportStats>;
}

/** Options of {@link createSpanExporter}. */
export interface ExporterOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** Called once, on the first failed export (the message names the URL's origin only). */
  onWarning?: (message: string) => void;
}

/** The SDK's span shape, as the exporters take it. */
type ReadableSpan = Parameters<OTLPTraceExporter['export']>[0][number];
type Resource = ReadableSpan['resource'];

/** The official exporter for the configured protocol and the resource every span carries. */
interface Transport {
  exporter: Pick<OTLPTraceExporter, 'export' | 'shutdown'>;
  resource: Resource;
}

async function loadTransport(config: TracingConfig): Promise<Transport> {
  const [{ resourceFromAttributes }, { OTLPTraceExporter: Exporter }] = await Promise.all([
    import('@opentelemetry/resources'),
    config.protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  return {
    exporter: new Exporter({ url: config.url, headers: { ...config.headers }, timeoutMillis: REQUEST_TIMEOUT_MS }),
    resource: resourceFromAttributes({ 'service.name': config.serviceName }),
  };
}

function scrubSpan(span: SpanData, redact: (text: string) => string): SpanData {
  const attributes: Record<string, AttributeValue> = {};
  for (const [key, value] of Object.entries(span.attributes)) {
    attributes[key] = typeof value === 'string' ? redact(value) : Array.isArray(value) ? value.map(redact) : value;
  }
  const status =
    span.status.message !== undefined ? { code: span.status.code, message: redact(span.status.message) } : span.status;
  return { ...span, name: redact(span.name), attributes, status };
}

const NS_PER_S = 1_000_000_000n;

/** Unix nanoseconds (decimal string) as the SDK's `[seconds, nanoseconds]`. */
function hrTime(ns: string): [number, number] {
  const v = BigInt(ns);
  return [Number(v / NS_PER_S), Number(v % NS_PER_S)];
}

/** A span as the SDK's `ReadableSpan` (our kinds are OTLP numbers, the SDK's one less). */
export function toReadableSpan(span: SpanData, resource: Resource): ReadableSpan {
  const start = hrTime(span.startNs);
  const end = hrTime(span.endNs);
  const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: 1 };
  const nanos = BigInt(span.endNs) - BigInt(span.startNs);
  return definedOnly<ReadableSpan>({
    name: span.name,
    kind: span.kind - 1,
    spanContext: () => context,
    parentSpanContext: span.parentSpanId
      ? { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: 1 }
      : undefined,
    startTime: start,
    endTime: end,
    status:
      span.status.message !== undefined
        ? { code: span.status.code, message: span.status.message }
        : { code: span.status.code },
    attributes: span.attributes,
    links: [],
    events: [],
    duration: [Number(nanos / NS_PER_S), Number(nanos % NS_PER_S)],
    ended: true,
    resource,
    instrumentationScope: { name: 'minicode', version: VERSION },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  });
}

/** Start an exporter for `config` (its transport loads in the background). */
export function createSpanExporter(config: TracingConfig, options: ExporterOptions): SpanExporter {
  const redact = outputRedactor(options.env);
  const stats: ExportStats = { exported: 0, failed: 0, dropped: 0 };
  let buffer: SpanData[] = [];
  const inFlight = new Set<Promise<void>>();
  let warned = false;
  const warn = (message: string): void => {
    if (warned) return;
    warned = true;
    options.onWarning?.(
      `OpenTelemetry export to ${new URL(config.url).origin} failed: ${message} (spans are dropped; the run goes on)`,
    );
  };
  let transport: Transport | undefined;
  let loadError: Error | undefined;
  const loading = loadTransport(config).then(
    (t) => {
      transport = t;
    },
    (error: Error) => {
      loadError = error;
    },
  );
  const post = (t: Transport, spans: SpanData[]): Promise<void> =>
    new Promise((resolve) => {
      t.exporter.export(
        spans.map((s) => toReadableSpan(s, t.resource)),
        (result) => {
          if (result.code === 0) stats.exported += spans.length;
          else {
            stats.failed += spans.length;
            warn(result.error?.message ?? 'export failed');
          }
          resolve();
        },
      );
    });
  // Everything buffered goes, in batches, at most MAX_IN_FLIGHT requests at a time.
  const drain = (): void => {
    if (loadError) {
      stats.failed += buffer.length;
      buffer = [];
      warn(`the exporter did not load: ${loadError.message}`);
      return;
    }
    const t = transport;
    if (!t) return;
    while (buffer.length > 0 && inFlight.size < MAX_IN_FLIGHT) {
      const spans = buffer.slice(0, MAX_BATCH);
      buffer = buffer.slice(MAX_BATCH);
      const p: Promise<void> = post(t, spans).finally(() => {
        inFlight.delete(p);
        if (buffer.length >= MAX_BATCH || (buffer.length > 0 && draining)) drain();
      });
      inFlight.add(p);
    }
  };
  // Set while a flush waits: partial batches go too.
  let draining = false;
  const flushAll = async (): Promise<void> => {
    await loading;
    draining = true;
    try {
      drain();
      while (inFlight.size > 0) {
        await Promise.race([...inFlight]);
        drain();
      }
    } finally {
      draining = false;
    }
  };
  void loading.then(() => {
    if (buffer.length >= MAX_BATCH) drain();
  });
  const timer = setInterval(drain, FLUSH_MS);
  timer.unref();
  return {
    add(spans) {
      for (const span of spans) buffer.push(scrubSpan(span, redact));
      if (buffer.length > MAX_BUFFERED) {
        stats.dropped += buffer.length - MAX_BUFFERED;
        buffer = buffer.slice(buffer.length - MAX_BUFFERED);
      }
      if (buffer.length >= MAX_BATCH) drain();
    },
    flush: flushAll,
    async shutdown() {
      clearInterval(timer);
      await flushAll();
      await transport?.exporter.shutdown().catch(() => undefined);
      return { ...stats };
    },
  };
}
