import { createLineFramer, type LineFramerOptions } from '../framing/lines.js';
import type { RunCore } from './run-core.js';
import { asRecord } from './text.js';
import { definedOnly } from '../defined-only.js';

/** Options of {@link createJsonlInput}. */
export interface JsonlInputOptions {
  core: RunCore;
  /** Called with each line that parsed to a JSON object. */
  onRecord: (record: Record<string, unknown>, line: number, raw: string) => void;
  /**
   * Called with a line that is not valid JSON before it is reported; return a repaired object
   * to decode it anyway (Gemini CLI snapshot placeholders), or undefined to report it.
   */
  repair?: (raw: string) => Record<string, unknown> | undefined;
  /** Longest line kept, in characters; default 16 MiB. */
  maxLineLength?: number;
}

/** A JSONL input: bytes in, JSON objects out; bad lines become diagnostics, never throws. */
export interface JsonlInput {
  feed(chunk: Uint8Array | string): void;
  /** Flush the last line (a line without a terminator is still decoded). */
  end(): void;
}

/**
 * Frame stdout bytes into lines and parse each as JSON. A line that is not JSON (a `[debug]`
 * line printed to stdout, `2>&1` noise, a torn record) becomes `MINICODE_E_NATIVE_BAD_JSON`;
 * valid JSON that is not an object becomes `MINICODE_E_NATIVE_UNKNOWN_RECORD`. Decoding
 * resumes at the next line either way.
 */
export function createJsonlInput(options: JsonlInputOptions): JsonlInput {
  const { core, onRecord, repair } = options;
  const framer = createLineFramer(
    definedOnly<LineFramerOptions>({
      maxLineLength: options.maxLineLength,
      onOverflow: (line, length) =>
        core.diagnostic(
          'MINICODE_E_NATIVE_LINE_TOO_LONG',
          `line of ${length} characters exceeds the frame limit; skipped`,
          { line },
        ),
      onLine(raw, line) {
        let value: unknown;
        try {
          value = JSON.parse(raw);
        } catch {
          const repaired = repair?.(raw);
          if (repaired) {
            core.diagnostic(
              'MINICODE_E_NATIVE_REPAIRED_RECORD',
              'line was not valid JSON; decoded after replacing placeholders',
              { line, raw },
            );
            onRecord(repaired, line, raw);
            return;
          }
          core.diagnostic('MINICODE_E_NATIVE_BAD_JSON', 'line is not valid JSON; skipped', { line, raw });
          return;
        }
        const record = asRecord(value);
        if (!record) {
          core.diagnostic('MINICODE_E_NATIVE_UNKNOWN_RECORD', 'line is JSON but not an object; skipped', { line, raw });
          return;
        }
        try {
          onRecord(record, line, raw);
        } catch (error) {
          // A decoder bug must not end the run (seed: a bad record never ends a run); report it.
          const message = error instanceof Error ? error.message : String(error);
          core.diagnostic('MINICODE_E_NATIVE_DECODER_FAULT', `decoder failed on this record: ${message}`, {
            line,
            raw,
          });
        }
      },
    }),
  );
  return {
    feed: (chunk) => framer.feed(chunk),
    end: () => {
      framer.end();
    },
  };
}
