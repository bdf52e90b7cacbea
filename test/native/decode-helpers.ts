import fs from 'node:fs';
import path from 'node:path';
import type { EventDraft } from '../../lib/events/index.js';
import type { NativeFormat } from '../../lib/decode/formats.js';
import { NATIVE_AGENT_DECODERS } from '../../lib/native/index.js';
import { FIXTURES } from '../helpers/cli.js';

/** How a test ends the input: the process exit (code, signal) or a bare end of stream. */
export type Ending = { exit: [number | null, string | null] } | 'end-only';

/** Decode chunks with a native decoder, then end (and exit, unless 'end-only'). */
export function decodeChunks(
  format: NativeFormat,
  chunks: (Uint8Array | string)[],
  ending: Ending = { exit: [0, null] },
): EventDraft[] {
  const events: EventDraft[] = [];
  const decoder = NATIVE_AGENT_DECODERS[format]({ onEvent: (e) => events.push(e) });
  for (const chunk of chunks) decoder.feed(chunk);
  decoder.end();
  if (ending !== 'end-only') decoder.exit(...ending.exit);
  return events;
}

/** Decode whole bytes in one chunk. */
export function decodeBytes(format: NativeFormat, bytes: Uint8Array | string, ending?: Ending): EventDraft[] {
  return decodeChunks(format, [bytes], ending);
}

/** Directory of the third-party native recordings. */
export const NATIVE_FIXTURES = path.join(FIXTURES, 'native');

/** Read a native fixture (`codex/x.jsonl`) as bytes. */
export function fixtureBytes(relative: string): Uint8Array {
  return fs.readFileSync(path.join(NATIVE_FIXTURES, relative));
}

/** Format of a fixture directory. */
export const FORMAT_OF_DIR: Record<string, NativeFormat> = {
  codex: 'codex',
  claude: 'claude-code',
  gemini: 'gemini-cli',
  opencode: 'opencode',
};

/** A compact outcome of a decoded run, for table tests. */
export interface RunSummary {
  finalMessage: string | undefined;
  tools: Record<string, string>;
  usage: unknown;
  outcome: string | undefined;
  diagnostics: string[];
}

/** Summarise decoded drafts: final main-agent message, each tool's terminal, last usage, outcome. */
export function summarise(events: EventDraft[]): RunSummary {
  let finalMessage: string | undefined;
  const tools: Record<string, string> = {};
  let usage: unknown;
  let outcome: string | undefined;
  const diagnostics: string[] = [];
  for (const e of events) {
    switch (e.type) {
      case 'assistant.message.completed':
        if (e.parentId === undefined) finalMessage = e.payload.text;
        break;
      case 'tool.started':
        tools[e.payload.toolCallId] = `${e.payload.name}:started`;
        break;
      case 'tool.completed':
      case 'tool.failed':
      case 'tool.denied':
      case 'tool.cancelled':
        {
          const before = tools[e.payload.toolCallId] ?? '?:';
          tools[e.payload.toolCallId] = `${before.slice(0, before.lastIndexOf(':'))}:${e.type.slice(5)}`;
        }
        break;
      case 'usage.reported':
        usage = e.payload;
        break;
      case 'task.completed':
      case 'task.failed':
      case 'task.cancelled':
        outcome = e.type === 'task.failed' ? `failed:${e.payload.reason}` : e.type.slice(5);
        break;
      case 'diagnostic.raised':
        diagnostics.push(e.payload.code);
        break;
      default:
    }
  }
  return { finalMessage, tools, usage, outcome, diagnostics };
}
