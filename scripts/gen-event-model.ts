/**
 * Regenerates the per-type reference section of docs/event-model.md from the zod source, the
 * registry and the examples, so the document cannot drift from the code. Run:
 * `npm run build && node dist/scripts/gen-event-model.js`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENT_REGISTRY, EVENT_TYPES, createEnveloper, type EventDraft } from '../lib/events/index.js';
import { PAYLOAD_EXAMPLES } from '../lib/events/examples.js';

const BEGIN = '<!-- BEGIN GENERATED: event types -->';
const END = '<!-- END GENERATED: event types -->';

/** The generated reference section. */
export function eventTypeReference(): string {
  const lines: string[] = [BEGIN, ''];
  lines.push('| type | durable | default status | default visibility |', '|---|---|---|---|');
  for (const type of EVENT_TYPES) {
    const info = EVENT_REGISTRY[type];
    lines.push(
      `| \`${type}\` | ${info.durable ? 'yes' : 'no (live)'} | ${info.status} | ${info.visibility.join(', ')} |`,
    );
  }
  lines.push('');
  for (const type of EVENT_TYPES) {
    const enveloper = createEnveloper({
      sessionId: 'ses_example',
      clock: () => Date.UTC(2026, 10, 30, 9, 0, 0),
      startSeq: 3,
    });
    const event = enveloper.wrap({ type, payload: PAYLOAD_EXAMPLES[type] } as EventDraft);
    lines.push(`### \`${type}\``, '', '```json', JSON.stringify(event), '```', '');
  }
  lines.push(END);
  return lines.join('\n');
}

function main(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const file = path.join(root, 'docs/event-model.md');
  const text = fs.readFileSync(file, 'utf8');
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start === -1 || end === -1) throw new Error(`${file} lacks the generated-section markers`);
  fs.writeFileSync(file, text.slice(0, start) + eventTypeReference() + text.slice(end + END.length));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
