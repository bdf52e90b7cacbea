import { beforeAll, describe, expect, it } from 'vitest';
import { loadMarkdown } from '../../lib/render/markdown/index.js';
import fs from 'node:fs';
import path from 'node:path';
import { createEnveloper, type OutputEvent } from '../../lib/events/index.js';
import { NATIVE_DECODERS } from '../../lib/native/index.js';
import { PROVIDER_DECODERS } from '../../lib/providers/index.js';
import { createJsonlRenderer } from '../../lib/render/jsonl.js';
import { createLinearRenderer } from '../../lib/render/linear.js';
import { viewOf } from '../../lib/render/state-view.js';
import { createTtyRenderer } from '../../lib/render/tty.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { outputJsonSchema } from '../../lib/events/json-schema.js';
import { FIXTURES, HAVE_FIXTURES, fixtureSkipNote } from '../helpers/cli.js';
import { collector, drive } from './drive.js';
import { fakeTerminal, manualTimer, stripEscapes, visibleEscapes } from './tty-fake.js';

// The TTY renders Markdown once the tokenizer is loaded: load it first, so every run renders alike.
beforeAll(() => loadMarkdown());

// Golden renderings of third-party recordings (read in place from ../shared/fixtures; the
// goldens hold only our rendering). Decoded with the provider/native decoders, enveloped
// with a fixed clock, reduced, then rendered by every renderer.

fixtureSkipNote();

const ajv = new Ajv2020({ strict: false });
ajv.addFormat('date-time', true);
const validate = ajv.compile(outputJsonSchema());

const CASES: [format: string, file: string][] = [
  ['openai-chat', 'providers/openai-chat/oc02-single-tool-call-usage.sse'],
  ['anthropic', 'providers/anthropic/an04-client-tool-use.sse'],
  ['anthropic', 'providers/anthropic/an90-midstream-overloaded.synth.sse'],
  ['openai-responses', 'providers/openai-responses/or01-function-call.sse'],
  ['gemini', 'providers/gemini/ge03-thinking-thought-parts.sse'],
  ['ollama', 'providers/ollama/ol04-chat-tool-call.synth.ndjson'],
  ['codex', 'native/codex/meawoppl-failed_command.jsonl'],
  ['codex', 'native/codex/meawoppl-multi_command.jsonl'],
  ['claude-code', 'native/claude/vincent-stream_permission_allow_2.1.226.jsonl'],
  ['gemini-cli', 'native/gemini/snapshot-tool-use.jsonl'],
  ['opencode', 'native/opencode/takopi-opencode-run-json-bash.jsonl'],
];

function decode(format: string, file: string): OutputEvent[] {
  let now = Date.UTC(2026, 10, 30, 12);
  const enveloper = createEnveloper({
    sessionId: `fx_${path.basename(file).replace(/\W+/g, '_')}`,
    clock: () => (now += 25),
  });
  const events: OutputEvent[] = [];
  const onEvent = (d: Parameters<typeof enveloper.wrap>[0]) => void events.push(enveloper.wrap(d));
  const provider = PROVIDER_DECODERS[format];
  const bytes = fs.readFileSync(path.join(FIXTURES, file));
  if (provider) {
    const decoder = provider({ onEvent });
    decoder.feed(bytes);
    decoder.end();
  } else {
    const decoder = NATIVE_DECODERS[format]!({ onEvent });
    decoder.feed(bytes);
    decoder.end();
    decoder.exit?.(0, null);
  }
  return events;
}

describe.skipIf(!HAVE_FIXTURES)('renderings of the recorded fixtures', () => {
  it.each(CASES)('%s %s renders the same by every renderer, as its golden file', async (format, file) => {
    const events = decode(format, file);
    expect(events.length).toBeGreaterThan(0);
    const outputs: Record<string, string> = {};
    for (const [name, make] of Object.entries({
      linear: (out: (c: string) => void) => createLinearRenderer({ out, viewOf, verbosity: 'verbose' as const }),
      jsonl: (out: (c: string) => void) => createJsonlRenderer({ out, viewOf }),
      tty: (out: (c: string) => void) =>
        createTtyRenderer({
          out,
          viewOf,
          verbosity: 'verbose',
          stream: fakeTerminal(80),
          env: { NO_COLOR: '1' },
          clock: () => 0,
          timer: manualTimer(),
        }),
    })) {
      const c = collector();
      drive(make(c.write), events);
      outputs[name] = c.text();
    }
    // Every tool's final line reads the same in linear and TTY output.
    const finals = (text: string) =>
      stripEscapes(text)
        .split(/[\r\n]/)
        .filter((l) => /^[✓✗⊘◌!] \S+ \S+ \[/u.test(l));
    expect(finals(outputs.tty!)).toEqual(finals(outputs.linear!));
    // The JSONL contract holds on recorded input too.
    const records = outputs
      .jsonl!.trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    for (const r of records.slice(0, -1))
      expect(r.type === 'text' || validate(r), JSON.stringify(validate.errors)).toBe(true);
    expect(records.at(-1)!.type).toBe('summary');
    const golden = [
      '# linear (verbose)',
      outputs.linear,
      '# jsonl',
      outputs.jsonl,
      '# tty',
      visibleEscapes(outputs.tty!),
    ].join('\n');
    await expect(golden).toMatchFileSnapshot(`golden/fixtures/${format}.${path.basename(file)}.txt`);
  });
});
