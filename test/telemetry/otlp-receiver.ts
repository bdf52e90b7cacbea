/**
 * A loopback OTLP/HTTP trace receiver for tests: it accepts POST /v1/traces in both encodings
 * and decodes them into plain spans, protobuf with protobufjs (a real decoder, against the
 * OTLP definitions below, copied field for field from opentelemetry-proto), JSON as is.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

const PROTO = `
syntax = "proto3";
package opentelemetry.proto;
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; } }
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message Status { string message = 2; int32 code = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5; int32 kind = 6;
  fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10;
  Status status = 15; fixed32 flags = 16;
}
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`;

const REQUEST = protobuf
  .parse(PROTO, { keepCase: false })
  .root.lookupType('opentelemetry.proto.ExportTraceServiceRequest');

/** A span as the receiver decoded it (ids hex, times as decimal strings). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  start: string;
  end: string;
  attributes: Record<string, unknown>;
  status: { code: number; message: string };
  service: string;
}

/** One POST as it arrived. */
export interface ReceivedRequest {
  contentType: string;
  body: Buffer;
  spans: ReceivedSpan[];
}

type Obj = Record<string, any>;

function value(v: Obj | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(value);
  return undefined;
}

function attributes(list: Obj[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, value(kv.value)]));
}

const hex = (b: string | undefined, base64: boolean): string =>
  b ? (base64 ? Buffer.from(b, 'base64').toString('hex') : b) : '';

function spansOf(doc: Obj, base64: boolean): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of doc.resourceSpans ?? []) {
    const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '');
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        out.push({
          traceId: hex(s.traceId, base64),
          spanId: hex(s.spanId, base64),
          parentSpanId: hex(s.parentSpanId, base64),
          name: s.name,
          kind: s.kind ?? 0,
          start: String(s.startTimeUnixNano),
          end: String(s.endTimeUnixNano),
          attributes: attributes(s.attributes),
          status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
          service,
        });
  }
  return out;
}

/** Decode a protobuf ExportTraceServiceRequest with protobufjs. */
export function decodeProtobuf(body: Uint8Array): ReceivedSpan[] {
  const doc = REQUEST.toObject(REQUEST.decode(body), { longs: String, bytes: String, defaults: true }) as Obj;
  return spansOf(doc, true);
}

/** Start the receiver on 127.0.0.1; `requests` fills as exports arrive. */
export async function startReceiver(): Promise<{
  url: string;
  requests: ReceivedRequest[];
  spans: () => ReceivedSpan[];
  close: () => Promise<void>;
}> {
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = String(req.headers['content-type'] ?? '');
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const spans =
        contentType === 'application/x-protobuf'
          ? decodeProtobuf(body)
          : spansOf(JSON.parse(body.toString('utf8')) as Obj, false);
      requests.push({ contentType, body, spans });
      res.writeHead(200, { 'content-type': contentType }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () => requests.flatMap((r) => r.spans),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
