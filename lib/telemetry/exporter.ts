/**
 * Sends spans to the OTLP/HTTP endpoint: buffered, posted in batches of at most
 * {@link MAX_BATCH} spans (at once when a batch fills, otherwise every {@link FLUSH_MS} ms and
 * at shutdown), each request bounded by {@link REQUEST_TIMEOUT_MS}. Every string that leaves
 * (attribute values, span names, status messages) goes through the secret scrubber first, with
 * the environment's credential values: the events the spans come from are scrubbed already,
 * this holds for whatever a caller adds. A failed export is reported once and never fails
 * the run; the buffer is bounded ({@link MAX_BUFFERED}), the oldest spans dropped and counted.
 */
import { credentialSecretsFromEnv } from '../scrub/env-secrets.js';
import { buildRuleTable, createTextRedactor } from '../scrub/secret-redactor.js';
import { VERSION } from '../../cli/version.js';
import type { TracingConfig } from './config.js';
import { encodeJson, encodeProtobuf, type ExportMeta } from './otlp.js';
import type { AttributeValue, SpanData } from './span.js';

/** Spans per request. */
export const MAX_BATCH = 512;
/** Spans held while the endpoint is slow or down. */
export const MAX_BUFFERED = 20_000;
/** Interval of background flushes. */
export const FLUSH_MS = 2000;
/** One request's deadline. */
export const REQUEST_TIMEOUT_MS = 10_000;

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
  /** Flush, stop the timer, return the counts. */
  shutdown(): Promise<ExportStats>;
}

/** Options of {@link createSpanExporter}. */
export interface ExporterOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** Called once, on the first failed export (the message names the URL's origin only). */
  onWarning?: (message: string) => void;
  fetch?: typeof fetch;
}

function scrubSpan(span: SpanData, redact: (text: string) => string): SpanData {
  const attributes: Record<string, AttributeValue> = {};
  for (const [key, value] of Object.entries(span.attributes)) {
    attributes[key] = typeof value === 'string' ? redact(value) : Array.isArray(value) ? value.map(redact) : value;
  }
  const status = span.status.message !== undefined ? { code: span.status.code, message: redact(span.status.message) } : span.status;
  return { ...span, name: redact(span.name), attributes, status };
}

/** Start an exporter for `config`. */
export function createSpanExporter(config: TracingConfig, options: ExporterOptions): SpanExporter {
  const redact = createTextRedactor(buildRuleTable(credentialSecretsFromEnv(options.env)));
  const send = options.fetch ?? fetch;
  const meta: ExportMeta = { serviceName: config.serviceName, scopeName: 'minicode', scopeVersion: VERSION };
  const stats: ExportStats = { exported: 0, failed: 0, dropped: 0 };
  let buffer: SpanData[] = [];
  const inFlight = new Set<Promise<void>>();
  let warned = false;
  const warn = (message: string): void => {
    if (warned) return;
    warned = true;
    options.onWarning?.(`OpenTelemetry export to ${new URL(config.url).origin} failed: ${message} (spans are dropped; the run goes on)`);
  };
  const post = async (spans: SpanData[]): Promise<void> => {
    const json = config.protocol === 'http/json';
    const body = json ? encodeJson(spans, meta) : encodeProtobuf(spans, meta);
    try {
      const response = await send(config.url, {
        method: 'POST',
        headers: { ...config.headers, 'content-type': json ? 'application/json' : 'application/x-protobuf' },
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      // The body is drained so the connection can be reused.
      await response.arrayBuffer().catch(() => undefined);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      stats.exported += spans.length;
    } catch (error) {
      stats.failed += spans.length;
      warn((error as Error).message);
    }
  };
  const drain = (): void => {
    while (buffer.length > 0) {
      const spans = buffer.slice(0, MAX_BATCH);
      buffer = buffer.slice(MAX_BATCH);
      const p = post(spans).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
  };
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
    async flush() {
      drain();
      await Promise.all([...inFlight]);
    },
    async shutdown() {
      clearInterval(timer);
      drain();
      await Promise.all([...inFlight]);
      return { ...stats };
    },
  };
}
