/**
 * The peer assembly of bench/pipeline.ts (bench/support/peer-assembly.ts: a line splitter,
 * JSON.parse, a switch reducer, JSON.stringify, one combined regex of the same secret rules, raw
 * lmdb puts) as a process of its own over a JSONL file, so bench/pipeline.ts's command rows can
 * measure it the way they measure `minicode ingest`: CPU from wait4, every thread, start-up
 * included. It reads the file in the reads `ingest` makes, writes each read's lines to stdout
 * as one write (awaiting `drain`) and ends once its puts are committed.
 *
 * Usage: node ingest-peer.js FILE --read-bytes N --store DIR
 */
import { once } from 'node:events';
import fs from 'node:fs';
import { combinedRegex } from './combined-regex.js';
import { createPeerFeed, openPeerStore } from './peer-assembly.js';
import { flagValue } from './ab-args.js';

const [file, ...args] = process.argv.slice(2);
const storeDir = flagValue(args, '--store');
const readBytes = Number(flagValue(args, '--read-bytes'));
if (file === undefined || storeDir === undefined || !(readBytes > 0)) {
  process.stderr.write('usage: ingest-peer.js FILE --read-bytes N --store DIR\n');
  process.exit(2);
}

const db = openPeerStore(storeDir);
let pending: string[] = [];
const peer = createPeerFeed('lines', 'peer-session', combinedRegex(), db, (line) => pending.push(line));

async function flush(): Promise<void> {
  if (pending.length === 0) return;
  const text = pending.join('');
  pending = [];
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

const input = fs.createReadStream(file, { highWaterMark: readBytes, encoding: 'utf8' });
for await (const chunk of input) {
  peer.feed(chunk as string);
  await flush();
}
peer.end();
await flush();
await db.flushed;
await db.close();
