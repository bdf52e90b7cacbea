/**
 * Scrub throughput: the streaming scrub (terminal sanitiser then secret redactor, whole rule
 * table, fed in 64 KiB chunks) over mixed code / JSON / prose with secrets and escape sequences
 * sprinkled in, against
 *  - `strip-ansi` on the same chunks (the named peer: it only strips ANSI, finds no secret), and
 *  - the floor: ONE combined regex of the same rules (every vendor pattern, keyword
 *    assignment, URL password, curl -u, Authorization and PEM header as one alternation with
 *    the `g` flag) run by `String.prototype.replace` over the same chunks. It neither sanitises
 *    nor handles chunk boundaries, so it is the least a whole-string scanner must pay.
 * Input: 100 MB (quick: 10 MB) from a seeded generator, so every run sees the same text.
 */
import stripAnsi from 'strip-ansi';
import {
  interleave,
  measurement,
  ratio,
  runIfMain,
  throughput,
  type BenchOptions,
  type BenchReport,
} from './harness.js';
import { createSanitizer } from '../lib/scrub/terminal-sanitizer.js';
import { createRedactor } from '../lib/scrub/secret-redactor.js';
import { DEFAULT_RULES } from '../lib/scrub/secret-rules.js';
import { combinedRegex } from './support/combined-regex.js';
import { mulberry32 } from '../lib/random.js';

const WORDS =
  'the a to of and in is it that for on with as was this by be are from or at an which not but have has can will stream event token parser secret delta chunk buffer value config path file tool model provider output input error result session store render'.split(
    ' ',
  );
const CODE = [
  'export function handle(event: Event): void {\n',
  '  const total = items.reduce((sum, x) => sum + x.size, 0);\n',
  '  if (!config.enabled) return;\n',
  '  for (let i = 0; i < n; i++) out.push(parse(lines[i]));\n',
  "import { createReadStream } from 'node:fs';\n",
  '  await store.put(`${sessionId}:${seq}`, envelope);\n',
  '}\n',
];

function b62(r: () => number, n: number): string {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < n; i++) s += abc[Math.floor(r() * 62)];
  return s;
}

/** Fake secrets and escapes in published formats, built from the seeded generator. */
function sprinkle(r: () => number): string {
  switch (Math.floor(r() * 10)) {
    case 0:
      return ` token ghp_${b62(r, 36)} `;
    case 1:
      return ` key=AKIA${b62(r, 16).toUpperCase()}\n`;
    case 2:
      return `\n"api_key": "${b62(r, 32)}",\n`;
    case 3:
      return ` postgres://app:${b62(r, 12)}@db:5432/x `;
    case 4:
      return ` \u001b[31merror\u001b[0m `;
    case 5:
      return ` \u001b]8;;https://example.com\u0007link\u001b]8;;\u0007 `;
    case 6:
      return `\n-----BEGIN PRIVATE KEY-----\n${b62(r, 64)}\n${b62(r, 64)}\n-----END PRIVATE KEY-----\n`;
    case 7:
      return ` sk-proj-${b62(r, 48)} `;
    case 8:
      return ` eyJhbGciOiJIUzI1NiJ9.eyJ${b62(r, 40)}.${b62(r, 43)} `;
    default:
      return ` Authorization: Bearer ${b62(r, 40)}\n`;
  }
}

/** Mixed code / JSON / prose, about `size` characters, a secret or escape every ~4 KB. */
export function generateScrubInput(size: number, seed = 42): string {
  const r = mulberry32(seed);
  const parts: string[] = [];
  let length = 0;
  let nextSecret = 4096;
  while (length < size) {
    let piece: string;
    const kind = r();
    if (kind < 0.4) {
      const words: string[] = [];
      for (let i = 0; i < 12; i++) words.push(WORDS[Math.floor(r() * WORDS.length)] as string);
      piece = words.join(' ') + '.\n';
    } else if (kind < 0.75) {
      piece = CODE[Math.floor(r() * CODE.length)] as string;
    } else {
      piece =
        JSON.stringify({
          id: Math.floor(r() * 1e6),
          name: WORDS[Math.floor(r() * WORDS.length)],
          ok: r() < 0.5,
          path: `src/${b62(r, 8)}.ts`,
        }) + '\n';
    }
    if (length >= nextSecret) {
      piece += sprinkle(r);
      nextSecret += 2048 + Math.floor(r() * 4096);
    }
    parts.push(piece);
    length += piece.length;
  }
  return parts.join('');
}

const CHUNK = 64 * 1024;

function chunks(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += CHUNK) out.push(text.slice(i, i + CHUNK));
  return out;
}

export async function run(options: BenchOptions): Promise<BenchReport> {
  const size = options.quick ? 10_000_000 : 100_000_000;
  const text = generateScrubInput(size);
  const pieces = chunks(text);
  const mb = text.length / 1e6;
  const floor = combinedRegex();
  let sink = 0;
  const samples = await interleave(options.quick ? 3 : 3, {
    stage: () => {
      const s = createSanitizer();
      const r = createRedactor();
      for (const p of pieces) sink += r.push(s.push(p)).length;
      sink += (r.push(s.end()) + r.end()).length;
    },
    redactor: () => {
      const r = createRedactor();
      for (const p of pieces) sink += r.push(p).length;
      sink += r.end().length;
    },
    sanitizer: () => {
      const s = createSanitizer();
      for (const p of pieces) sink += s.push(p).length;
    },
    stripAnsi: () => {
      for (const p of pieces) sink += stripAnsi(p).length;
    },
    combinedRegex: () => {
      for (const p of pieces) sink += p.replace(floor, '[REDACTED]').length;
    },
  });
  const stage = measurement('scrub stage (sanitise + redact, streaming)', 'MB/s', throughput(samples['stage']!, mb));
  const redactor = measurement('secret redactor alone', 'MB/s', throughput(samples['redactor']!, mb));
  const sanitizer = measurement('terminal sanitiser alone', 'MB/s', throughput(samples['sanitizer']!, mb));
  const strip = measurement('strip-ansi (peer, ANSI only)', 'MB/s', throughput(samples['stripAnsi']!, mb));
  const combined = measurement(
    'one combined regex of the same rules (floor)',
    'MB/s',
    throughput(samples['combinedRegex']!, mb),
  );
  return {
    name: 'scrub',
    title: 'Scrub stage throughput',
    description: `Streaming scrub of ${mb.toFixed(0)} MB of seeded mixed code/JSON/prose (64 KiB chunks, ${DEFAULT_RULES.length} rules) against strip-ansi and one combined regex of the same rules.`,
    measurements: [stage, redactor, sanitizer, strip, combined],
    ratios: [
      ratio('scrub stage / combined-regex floor', stage, combined, { op: '>=', value: 1 }),
      ratio('scrub stage / strip-ansi', stage, strip),
    ],
    notes: [`checksum ${sink % 9973} (keeps the work observable)`],
  };
}

await runIfMain(import.meta.url, run);
