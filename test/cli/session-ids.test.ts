/**
 * Session ids are checked where they enter (`ingest --session`, `replay SESSION`) against one
 * grammar, and every id printed is made inert: a store written by an older build may hold an
 * id with an OSC 52 clipboard write in it, and `minicode sessions` must not pass it on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MinicodeError } from '../../lib/errors.js';
import { checkSessionId, displayId, newSessionId, SESSION_ID_PATTERN } from '../../lib/ids.js';
import { runIngest } from '../../lib/pipeline/ingest.js';
import { openStore } from '../../lib/store/index.js';
import { tempDir } from '../exec/helpers.js';
import { ROOT, runCli } from '../helpers/cli.js';

const STREAM = path.join(ROOT, 'test/streams/native/codex-all-items.jsonl');
/** An id carrying an OSC 52 clipboard write, an 8-bit CSI and a bidi override. */
const HOSTILE = 'evil\u001b]52;c;aGVsbG8=\u0007\u009b2J\u202e';

/** True when `text` holds a byte or character a terminal could act on. */
function hasTerminalControls(text: string): boolean {
  return /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(text);
}

/** A store holding a session whose id an older build accepted without a check. */
async function storeWithHostileId(): Promise<string> {
  const dir = tempDir('minicode-hostile-store-');
  const store = openStore({ dir });
  await runIngest({ input: Readable.from([fs.readFileSync(STREAM)]), format: 'codex', sessionId: HOSTILE, store });
  await store.close();
  return dir;
}

describe('the session id grammar', () => {
  it('accepts generated ids and refuses empty, too long, spaced or control-laden ones with a coded error', () => {
    expect(checkSessionId(newSessionId(), 'x')).toMatch(SESSION_ID_PATTERN);
    expect(checkSessionId('run-1.a:b_c', 'x')).toBe('run-1.a:b_c');
    for (const bad of ['', 'a'.repeat(129), 'two words', HOSTILE, 'a/b']) {
      expect(() => checkSessionId(bad, '--session')).toThrow(MinicodeError);
      try {
        checkSessionId(bad, '--session');
      } catch (error) {
        expect((error as MinicodeError).code).toBe('MINICODE_E_SESSION_ID_INVALID');
        expect((error as MinicodeError).exitCode).toBe(2);
        expect(hasTerminalControls((error as MinicodeError).message)).toBe(false);
      }
    }
  });

  it('displays any id without terminal controls, escaping what falls outside the grammar', () => {
    expect(displayId('ses_1')).toBe('ses_1');
    expect(displayId(HOSTILE)).toBe('evil\\x1b\\x5d52\\x3bc\\x3baGVsbG8\\x3d\\x07\\x9b2J\\u{202e}');
    expect(displayId('\u0007'.repeat(200)).length).toBeLessThanOrEqual(129);
  });
});

describe('session ids at the command line', () => {
  it('ingest --session refuses an id with an escape sequence (exit 2) and stores nothing', async () => {
    const store = path.join(tempDir('minicode-ingest-'), 'store');
    const r = await runCli(['ingest', '--from', 'codex', STREAM, '--store', store, '--session', HOSTILE, '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout.trim()).error.code).toBe('MINICODE_E_SESSION_ID_INVALID');
    expect(hasTerminalControls(r.stderr)).toBe(false);
    expect(fs.existsSync(store)).toBe(false);
  });

  it('replay refuses an id outside the grammar with exit 2 and prints no control character', async () => {
    const r = await runCli(['replay', HOSTILE, '--store', await storeWithHostileId()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('MINICODE_E_SESSION_ID_INVALID');
    expect(hasTerminalControls(r.stdout + r.stderr)).toBe(false);
  });

  it('sessions lists an id stored by an older build escaped, in the table and in --json', async () => {
    const store = await storeWithHostileId();
    const table = await runCli(['sessions', '--store', store]);
    expect(table.code, table.stderr).toBe(0);
    expect(hasTerminalControls(table.stdout)).toBe(false);
    expect(table.stdout).toContain(displayId(HOSTILE));
    const json = await runCli(['sessions', '--json', '--store', store]);
    expect(json.code, json.stderr).toBe(0);
    expect(hasTerminalControls(json.stdout.replace(/\n$/, ''))).toBe(false);
    // The machine form keeps the id exact once parsed.
    expect(JSON.parse(json.stdout).sessionId).toBe(HOSTILE);
  });
});
