import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import {
  EVENT_REGISTRY,
  EVENT_TYPES,
  OutputEventSchema,
  createEnveloper,
  envelopeSchemas,
  payloadSchemas,
  type EventDraft,
} from '../../lib/events/index.js';
import { INVALID_PAYLOAD_EXAMPLES, PAYLOAD_EXAMPLES } from '../../lib/events/examples.js';
import { outputJsonSchema } from '../../lib/events/json-schema.js';
import { ROOT, runCli } from '../helpers/cli.js';

const SESSION = 'ses_contract';

function envelopeOf(type: (typeof EVENT_TYPES)[number], payload: unknown) {
  const enveloper = createEnveloper({ sessionId: SESSION, clock: () => Date.UTC(2026, 10, 30, 12) });
  return enveloper.wrap({ type, payload } as EventDraft);
}

describe('the minicode.output.v1 event contract', () => {
  it('has a payload schema, a registry entry and an example for every taxonomy type', () => {
    expect(EVENT_TYPES.length).toBeGreaterThanOrEqual(40);
    for (const type of EVENT_TYPES) {
      expect(payloadSchemas[type], type).toBeDefined();
      expect(EVENT_REGISTRY[type], type).toBeDefined();
      expect(PAYLOAD_EXAMPLES[type], type).toBeDefined();
    }
  });

  it.each(EVENT_TYPES)('round-trips a valid %s envelope through parse, serialize and parse', (type) => {
    const event = envelopeOf(type, PAYLOAD_EXAMPLES[type]);
    const once = OutputEventSchema.parse(event);
    const twice = OutputEventSchema.parse(JSON.parse(JSON.stringify(once)));
    expect(twice).toEqual(once);
    expect(envelopeSchemas[type].parse(event)).toEqual(once);
  });

  it.each(EVENT_TYPES)('rejects an invalid %s payload with a message naming the field', (type) => {
    const { payload, field } = INVALID_PAYLOAD_EXAMPLES[type];
    const result = envelopeSchemas[type].safeParse(envelopeOf(type, payload));
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((issue) => issue.path.join('.'));
    expect(
      paths.some((p) => p === `payload.${field}` || p.startsWith(`payload.${field}.`)),
      paths.join(', '),
    ).toBe(true);
  });

  it('derives event ids from the session and sequence, with the injected clock', () => {
    const enveloper = createEnveloper({ sessionId: 's1', clock: () => 0, startSeq: 7 });
    const event = enveloper.wrap({ type: 'task.started', payload: { taskId: 't' } });
    expect(event.eventId).toBe('s1:7');
    expect(event.seq).toBe(7);
    expect(event.timestamp).toBe('1970-01-01T00:00:00.000Z');
    expect(event.status).toBe('started');
    expect(enveloper.nextSeq).toBe(8);
  });

  it('marks deltas and progress as live and lifecycle terminals as durable', () => {
    expect(EVENT_REGISTRY['assistant.message.delta'].durable).toBe(false);
    expect(EVENT_REGISTRY['assistant.reasoning.delta'].durable).toBe(false);
    expect(EVENT_REGISTRY['tool.progress'].durable).toBe(false);
    expect(EVENT_REGISTRY['task.progress'].durable).toBe(false);
    for (const type of [
      'tool.completed',
      'tool.failed',
      'tool.denied',
      'tool.cancelled',
      'task.completed',
      'user.approval.settled',
    ] as const) {
      expect(EVENT_REGISTRY[type].durable, type).toBe(true);
    }
  });
});

describe('the published JSON Schema', () => {
  const schema = outputJsonSchema();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('date-time', true);
  const validate = ajv.compile(schema);

  it.each(EVENT_TYPES)('accepts the %s example and rejects its invalid twin', (type) => {
    expect(validate(envelopeOf(type, PAYLOAD_EXAMPLES[type])), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(envelopeOf(type, INVALID_PAYLOAD_EXAMPLES[type].payload))).toBe(false);
  });

  it('matches the checked-in docs/schema file (run `npm run build && node dist/cli/main.js schema > docs/schema/minicode.output.v1.json`)', () => {
    const file = path.join(ROOT, 'docs/schema/minicode.output.v1.json');
    const checkedIn = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(checkedIn).toEqual(schema);
  });

  it('is printed by `minicode schema` as valid JSON', async () => {
    const result = await runCli(['schema']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(schema);
  });
});

describe('the CLI surface', () => {
  it('lists its commands in --help', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('schema');
  });

  it('exits 2 with one line for an unknown command', async () => {
    const result = await runCli(['no-such-command']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
  });

  it('exits 2 with one line for an unknown flag', async () => {
    const result = await runCli(['schema', '--no-such-flag']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('keeps the CLI version in step with package.json', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const result = await runCli(['--version']);
    expect(result.stdout.trim()).toBe(pkg.version);
  });
});

describe('docs/event-model.md', () => {
  it('carries the generated reference of every event type, as the source makes it today', async () => {
    const { eventTypeReference } = await import('../../scripts/gen-event-model.js');
    const text = fs.readFileSync(path.join(ROOT, 'docs/event-model.md'), 'utf8');
    expect(text).toContain(eventTypeReference());
  });
});

describe('docs/cli.md', () => {
  it('is the help of every command as the CLI defines it today', async () => {
    const { cliReference } = await import('../../scripts/gen-cli-reference.js');
    expect(fs.readFileSync(path.join(ROOT, 'docs/cli.md'), 'utf8')).toBe(cliReference());
  });
});
