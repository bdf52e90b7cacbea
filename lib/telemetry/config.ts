/**
 * Whether to trace, from the standard OpenTelemetry exporter variables (or `--otel-endpoint`).
 * Cheap on purpose: this is all a run loads when tracing is off; the exporter and the OpenTelemetry packages are
 * imported only when this returns a config.
 *
 * - `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`: the traces URL, used as is;
 *   `OTEL_EXPORTER_OTLP_ENDPOINT` (or `--otel-endpoint`): a base URL, `/v1/traces` appended.
 * - `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` / `OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf`
 *   (the default, as the specification says) or `http/json`; `grpc` is refused (not built in).
 * - `OTEL_EXPORTER_OTLP_TRACES_HEADERS` / `OTEL_EXPORTER_OTLP_HEADERS`: `k=v,k2=v2`, URL-decoded.
 * - `OTEL_SDK_DISABLED=true` turns tracing off; `OTEL_SERVICE_NAME` names the service.
 * - `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` opts in to prompt and tool
 *   content on spans (scrubbed like everything else); off by default.
 */
import { MinicodeError } from '../errors.js';

/** The OTLP/HTTP encodings we export. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** What the exporter needs. */
export interface TracingConfig {
  /** Full traces URL. */
  url: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  serviceName: string;
  /** Prompt and tool content on spans (opt-in). */
  captureContent: boolean;
}

function traceUrl(base: string): string {
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

function parseHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const i = pair.indexOf('=');
    if (i <= 0) continue;
    try {
      out[decodeURIComponent(pair.slice(0, i).trim())] = decodeURIComponent(pair.slice(i + 1).trim());
    } catch {
      // A malformed escape: the header is skipped rather than sent half-decoded.
    }
  }
  return out;
}

/** The tracing config, or undefined when tracing is off. Throws MINICODE_E_OTEL_CONFIG on a bad URL or protocol. */
export function tracingConfig(
  env: Readonly<Record<string, string | undefined>>,
  endpointFlag?: string,
): TracingConfig | undefined {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true' && endpointFlag === undefined) return undefined;
  const url =
    endpointFlag !== undefined
      ? traceUrl(endpointFlag)
      : env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
        (env.OTEL_EXPORTER_OTLP_ENDPOINT ? traceUrl(env.OTEL_EXPORTER_OTLP_ENDPOINT) : undefined);
  if (!url) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new MinicodeError(
      'MINICODE_E_OTEL_CONFIG',
      `the OTLP endpoint is not a URL: ${JSON.stringify(url.slice(0, 200))}`,
      { action: 'set OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318' },
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new MinicodeError(
      'MINICODE_E_OTEL_CONFIG',
      `the OTLP endpoint must be http or https, got ${parsed.protocol}`,
      { action: 'set OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318' },
    );
  }
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ||
    env.OTEL_EXPORTER_OTLP_PROTOCOL ||
    'http/protobuf'
  ).trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new MinicodeError(
      'MINICODE_E_OTEL_CONFIG',
      `OTLP protocol "${protocol.slice(0, 40)}" is not supported (http/protobuf or http/json)`,
      {
        action: 'set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf',
      },
    );
  }
  return {
    url: parsed.toString(),
    protocol,
    headers: {
      ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
      ...parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    },
    serviceName: env.OTEL_SERVICE_NAME || 'minicode',
    captureContent: (env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ?? '').toLowerCase() === 'true',
  };
}
