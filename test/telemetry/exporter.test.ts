/**
 * The exporter (the official OTLP exporters under our batching and scrubbing) against a loopback
 * receiver that decodes with protobufjs or JSON.parse: generated spans arrive as they were sent,
 * in both protocols; and the tracing config read from the variables.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { tracingConfig, type TracingConfig } from '../../lib/telemetry/config.js';
import { createSpanExporter, MAX_BATCH } from '../../lib/telemetry/exporter.js';
import type { AttributeValue, SpanData } from '../../lib/telemetry/span.js';
import { MinicodeError } from '../../lib/errors.js';
import { startReceiver } from './otlp-receiver.js';

const hex = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
const attribute: fc.Arbitrary<AttributeValue> = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.boolean(),
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isSafeInteger(d)),
  fc.array(fc.string(), { maxLength: 4 }),
);
const span: fc.Arbitrary<SpanData> = fc.record({
  traceId: hex(16).filter((h) => !/^0+$/.test(h)),
  spanId: hex(8).filter((h) => !/^0+$/.test(h)),
  parentSpanId: hex(8).filter((h) => !/^0+$/.test(h)),
  name: fc.string({ unit: 'grapheme' }),
  kind: fc.constantFrom(1, 2, 3),
  startNs: fc.bigInt({ min: 0n, max: 2n ** 63n }).map(String),
  endNs: fc.bigInt({ min: 2n ** 63n, max: 2n ** 64n - 1n }).map(String),
  attributes: fc.dictionary(fc.string({ minLength: 1 }), attribute, { maxKeys: 6 }),
  status: fc.record({ code: fc.constantFrom(0, 1, 2), message: fc.string({ minLength: 1 }) }),
});

function normalise(s: SpanData): Record<string, unknown> {
  return {
    traceId: s.traceId,
    spanId: s.spanId,
    parentSpanId: s.parentSpanId ?? '',
    name: s.name,
    kind: s.kind,
    start: s.startNs,
    end: s.endNs,
    attributes: s.attributes,
    status: s.status,
  };
}

let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function configFor(url: string, protocol: TracingConfig['protocol']): TracingConfig {
  const config = tracingConfig({
    OTEL_EXPORTER_OTLP_ENDPOINT: url,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_SERVICE_NAME: 'svc',
  });
  if (!config) throw new Error('tracing is off');
  return config;
}

describe('the span exporter', () => {
  for (const protocol of ['http/protobuf', 'http/json'] as const) {
    it(`sends any spans over ${protocol} so that the receiver decodes them as they were built`, async () => {
      receiver = await startReceiver();
      const batches = fc.sample(fc.array(span, { minLength: 1, maxLength: 20 }), { numRuns: 15, seed: 22 });
      const exporter = createSpanExporter(configFor(receiver.url, protocol), { env: {} });
      for (const batch of batches) exporter.add(batch);
      const stats = await exporter.shutdown();
      const sent = batches.flat();
      expect(stats).toEqual({ exported: sent.length, failed: 0, dropped: 0 });
      const received = receiver.spans();
      expect(new Set(receiver.requests.map((r) => r.contentType))).toEqual(
        new Set([protocol === 'http/json' ? 'application/json' : 'application/x-protobuf']),
      );
      expect(received.every((s) => s.service === 'svc')).toBe(true);
      expect(received.map(({ service: _, ...s }) => s)).toEqual(sent.map(normalise));
    });
  }

  it(`posts at most ${MAX_BATCH} spans a request and scrubs credential values from what it sends`, async () => {
    receiver = await startReceiver();
    const secret = 'sk-test-abcdefghijklmnopqrstuvwxyz0123456789';
    const exporter = createSpanExporter(configFor(receiver.url, 'http/json'), { env: { OPENAI_API_KEY: secret } });
    const base: SpanData = {
      traceId: 'a'.repeat(32),
      spanId: 'b'.repeat(16),
      name: `tool ${secret}`,
      kind: 1,
      startNs: '1',
      endNs: '2',
      attributes: { prompt: `use ${secret}` },
      status: { code: 2, message: secret },
    };
    exporter.add(Array.from({ length: MAX_BATCH + 3 }, () => base));
    expect(await exporter.shutdown()).toMatchObject({ exported: MAX_BATCH + 3, failed: 0 });
    expect(receiver.requests.map((r) => r.spans.length).sort((a, b) => a - b)).toEqual([3, MAX_BATCH]);
    expect(receiver.requests.some((r) => r.body.toString('latin1').includes(secret))).toBe(false);
  });

  it('warns once, naming only the origin, when the endpoint refuses, and the spans count as failed', async () => {
    receiver = await startReceiver();
    const url = receiver.url;
    await receiver.close();
    receiver = undefined;
    const warnings: string[] = [];
    const exporter = createSpanExporter(configFor(`${url}/secret-path`, 'http/protobuf'), {
      env: {},
      onWarning: (m) => warnings.push(m),
    });
    exporter.add([
      {
        traceId: 'a'.repeat(32),
        spanId: 'b'.repeat(16),
        name: 'x',
        kind: 1,
        startNs: '1',
        endNs: '2',
        attributes: {},
        status: { code: 0 },
      },
    ]);
    expect(await exporter.shutdown()).toMatchObject({ exported: 0, failed: 1 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(new URL(url).origin);
    expect(warnings[0]).not.toContain('secret-path');
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
    expect(
      tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/custom' })
        ?.url,
    ).toBe('https://b/custom');
    expect(tracingConfig({}, 'http://flag:1')?.url).toBe('http://flag:1/v1/traces');
    expect(
      tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h', OTEL_EXPORTER_OTLP_HEADERS: 'a=1,b=x%20y,bad' })
        ?.headers,
    ).toEqual({ a: '1', b: 'x y' });
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
