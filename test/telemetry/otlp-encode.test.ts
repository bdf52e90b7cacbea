import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tracingConfig } from '../../lib/telemetry/config.js';
import { encodeJson, encodeProtobuf } from '../../lib/telemetry/otlp.js';
import type { AttributeValue, SpanData } from '../../lib/telemetry/span.js';
import { MinicodeError } from '../../lib/errors.js';
import { decodeProtobuf } from './otlp-receiver.js';

const META = { serviceName: 'svc', scopeName: 'minicode', scopeVersion: '0.1.0' };

const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
const attribute: fc.Arbitrary<AttributeValue> = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.boolean(),
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isSafeInteger(d)),
  fc.array(fc.string(), { maxLength: 4 }),
);
const span: fc.Arbitrary<SpanData> = fc.record({
  traceId: hex(16),
  spanId: hex(8),
  parentSpanId: hex(8),
  name: fc.string({ unit: 'grapheme' }),
  kind: fc.constantFrom(1, 2, 3),
  startNs: fc.bigInt({ min: 0n, max: 2n ** 63n }).map(String),
  endNs: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
  attributes: fc.dictionary(fc.string({ minLength: 1 }), attribute, { maxKeys: 6 }),
  status: fc.record({ code: fc.constantFrom(0, 1, 2), message: fc.string() }),
});

function normalise(s: SpanData): Record<string, unknown> {
  return { traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, kind: s.kind, start: s.startNs, end: s.endNs, attributes: s.attributes, status: s.status };
}

describe('the OTLP encoder', () => {
  it('writes protobuf that protobufjs decodes to the same spans, for any ids, times, names and attribute values', () => {
    fc.assert(
      fc.property(fc.array(span, { maxLength: 4 }), (spans) => {
        const decoded = decodeProtobuf(encodeProtobuf(spans, META)).map((d) => ({ ...d, service: undefined }));
        expect(decoded.map(({ service: _, ...d }) => d)).toEqual(spans.map(normalise));
      }),
      { numRuns: 200 },
    );
  });

  it('writes JSON in the OTLP mapping: hex ids, integers and times as decimal strings, enums as numbers', () => {
    const body = JSON.parse(
      encodeJson(
        [
          {
            traceId: 'a'.repeat(32),
            spanId: 'b'.repeat(16),
            name: 'chat m',
            kind: 3,
            startNs: '1',
            endNs: '2',
            attributes: { n: 5, d: 0.5, s: 'x', b: true, a: ['y'] },
            status: { code: 2, message: 'e' },
          },
        ],
        META,
      ),
    );
    const s = body.resourceSpans[0].scopeSpans[0].spans[0];
    expect(s).toMatchObject({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), kind: 3, startTimeUnixNano: '1', endTimeUnixNano: '2', status: { code: 2, message: 'e' } });
    expect(s.attributes).toEqual([
      { key: 'n', value: { intValue: '5' } },
      { key: 'd', value: { doubleValue: 0.5 } },
      { key: 's', value: { stringValue: 'x' } },
      { key: 'b', value: { boolValue: true } },
      { key: 'a', value: { arrayValue: { values: [{ stringValue: 'y' }] } } },
    ]);
  });
});

describe('the tracing config', () => {
  it('is off without an endpoint, and off with OTEL_SDK_DISABLED', () => {
    expect(tracingConfig({})).toBeUndefined();
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
  });

  it('appends /v1/traces to the base endpoint, uses the traces endpoint as is, and defaults to protobuf', () => {
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h:4318/' })).toMatchObject({
      url: 'http://h:4318/v1/traces',
      protocol: 'http/protobuf',
      captureContent: false,
      serviceName: 'minicode',
    });
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/custom' })?.url).toBe('https://b/custom');
    expect(tracingConfig({}, 'http://flag:1')?.url).toBe('http://flag:1/v1/traces');
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h', OTEL_EXPORTER_OTLP_HEADERS: 'a=1,b=x%20y,bad' })?.headers).toEqual({ a: '1', b: 'x y' });
  });

  it('refuses grpc and non-http endpoints with MINICODE_E_OTEL_CONFIG', () => {
    for (const env of [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'file:///tmp/x' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' },
    ]) {
      try {
        tracingConfig(env);
        expect.unreachable();
      } catch (error) {
        expect((error as MinicodeError).code).toBe('MINICODE_E_OTEL_CONFIG');
      }
    }
  });
});
