/**
 * Spans as plain data: what the run's span builder produces (on any thread) and the OTLP
 * exporter consumes. Plain so that spans built on a pool thread cross to the coordinator by
 * structured clone, like records. Times are Unix nanoseconds as decimal strings (a double
 * cannot hold them exactly).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';

/** An attribute value (OTLP AnyValue subset). */
export type AttributeValue = string | number | boolean | string[];

/** Span kinds, with their OTLP numbers. */
export const SpanKind = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;

/** Span status codes, with their OTLP numbers. */
export const StatusCode = { UNSET: 0, OK: 1, ERROR: 2 } as const;

/** One finished span. */
export interface SpanData {
  /** 32 hex digits. */
  traceId: string;
  /** 16 hex digits. */
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startNs: string;
  endNs: string;
  /** Integers are sent as int, other numbers as double. */
  attributes: Record<string, AttributeValue>;
  status: { code: number; message?: string };
}

/** Where a span hangs: its trace and its parent (W3C trace context). */
export interface TraceParent {
  traceId: string;
  spanId: string;
}

/** A new trace id (16 random bytes, hex). */
export function newTraceId(): string {
  return randomBytes(16).toString('hex');
}

/** A new span id (8 random bytes, hex). */
export function newSpanId(): string {
  return randomBytes(8).toString('hex');
}

/** Now, as Unix nanoseconds (microsecond precision from the monotonic clock). */
export function nowNs(): string {
  return (BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000)) * 1000n).toString();
}

/** The W3C `traceparent` header value of a span (sampled). */
export function traceparent(parent: TraceParent): string {
  return `00-${parent.traceId}-${parent.spanId}-01`;
}
