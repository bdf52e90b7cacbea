/** Hand-made transcripts for the control-plane tests (generated, deterministic). */
import type { TranscriptMessage } from '../../../lib/control/transcript.js';

/** A tool-using exchange: user asks, assistant calls `calls` tools, each result `resultChars` long. */
export function exchange(
  n: number,
  options: { calls?: number; resultChars?: number; userChars?: number; assistantChars?: number } = {},
): TranscriptMessage[] {
  const calls = options.calls ?? 1;
  const out: TranscriptMessage[] = [
    {
      role: 'user',
      text:
        `Request ${n}: ` +
        'please look at the build output and fix the failing test. '.repeat(Math.ceil((options.userChars ?? 600) / 58)),
    },
  ];
  const ids = Array.from({ length: calls }, (_, k) => `call_${n}_${k}`);
  out.push({
    role: 'assistant',
    text:
      `Step ${n}: ` +
      'I will run the command and read its output carefully. '.repeat(Math.ceil((options.assistantChars ?? 400) / 55)),
    toolCalls: ids.map((id) => ({ id, name: 'bash', argumentsText: JSON.stringify({ command: `npm test -- ${n}` }) })),
    reasoning: 'thinking '.repeat(50),
  });
  for (const id of ids) {
    out.push({
      role: 'tool',
      toolCallId: id,
      content:
        `exit 1 for ${id}\n` +
        'FAIL src/a.test.ts > adds numbers: expected 3, got 4\n'.repeat(Math.ceil((options.resultChars ?? 4000) / 52)),
    });
  }
  return out;
}

/** `count` exchanges in a row, then a final user message. */
export function transcript(count: number, options: Parameters<typeof exchange>[1] = {}): TranscriptMessage[] {
  const out: TranscriptMessage[] = [];
  for (let n = 0; n < count; n++) out.push(...exchange(n, options));
  out.push({ role: 'user', text: 'Now summarise what you changed.' });
  return out;
}
