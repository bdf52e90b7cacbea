/**
 * The `ingest` job of bench/pipeline.ts's command rows done by the least a Node program needs,
 * measured as the command is: a process of its own, its CPU from wait4 (every thread, start-up
 * included). It reads a JSONL file in the reads `ingest` makes, parses each record, wraps it as
 * it is in an envelope with the fields of `minicode.output.v1` (schema, eventId, seq, type,
 * timestamp, sessionId, source, severity, status, visibility, fidelity, payload), writes the
 * lines to stdout (awaiting `drain`), and, unless `--no-store`, puts each read's lines into lmdb
 * as one value, LZ4-compressed above the store's threshold and committed with a sync
 * (`overlappingSync: false`), as minicode's store keeps its batch values. No decoding into the
 * event model, no sanitising or secret scan, no reducer, no index, no session record: what any
 * tool that turns the records into stored JSON events pays on this machine. `--uncompressed`
 * keeps the values as they are (a store 4-5 times larger on disk).
 *
 * Usage: node ingest-floor.js FILE --read-bytes N (--store DIR [--uncompressed] | --no-store)
 */
import { once } from 'node:events';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { flagValue } from './ab-args.js';

const [file, ...args] = process.argv.slice(2);
const storeDir = flagValue(args, '--store');
const readBytes = Number(flagValue(args, '--read-bytes'));
if (file === undefined || !(readBytes > 0) || (storeDir === undefined && !args.includes('--no-store'))) {
  process.stderr.write('usage: ingest-floor.js FILE --read-bytes N (--store DIR [--uncompressed] | --no-store)\n');
  process.exit(2);
}

// lmdb's CommonJS build, as minicode's loader takes it (one file rather than its ES module tree).
const db =
  storeDir === undefined
    ? undefined
    : (createRequire(import.meta.url)('lmdb') as typeof import('lmdb')).open<string, number>({
        path: storeDir,
        noSubdir: false,
        overlappingSync: false,
        encoding: 'string',
        compression: args.includes('--uncompressed') ? false : { threshold: 8192 },
      });

const sessionId = 'ses_floor_0000000000';
const timestamp = new Date().toISOString();
const visibility = ['normal', 'verbose', 'debug', 'machine'];
let seq = 0;
let reads = 0;
let tail = '';

function envelopeLines(text: string): string {
  const lines = text.split('\n');
  tail = lines.pop() as string;
  const out: string[] = [];
  for (const line of lines) {
    if (line === '') continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      record = { text: line };
    }
    const s = seq++;
    out.push(
      JSON.stringify({
        schema: 'minicode.output.v1',
        eventId: `${sessionId}:${s}`,
        seq: s,
        type: typeof record.type === 'string' ? record.type : 'record',
        timestamp,
        sessionId,
        source: 'runtime',
        severity: 'info',
        status: 'completed',
        visibility,
        fidelity: 'native',
        payload: record,
      }),
    );
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

async function emit(lines: string): Promise<void> {
  if (lines === '') return;
  void db?.put(reads++, lines);
  if (!process.stdout.write(lines)) await once(process.stdout, 'drain');
}

const input = fs.createReadStream(file, { highWaterMark: readBytes, encoding: 'utf8' });
for await (const chunk of input) await emit(envelopeLines(tail + (chunk as string)));
await emit(envelopeLines(`${tail}\n`));
if (db) {
  await db.flushed;
  await db.close();
}
