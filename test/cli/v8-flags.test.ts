/**
 * The V8 tiering flags the bootstrap sets for itself (cli/v8-flags.ts, docs/startup.md § The
 * optimising compiler): which are set, that flags given to Node win, and, through the built `bin`
 * as a real subprocess with V8's `--trace-opt`, that a short `exec` from a warm code cache starts
 * no optimising compile.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyRuntimeV8Flags, RUNTIME_V8_FLAGS, runtimeV8Flags } from '../../cli/v8-flags.js';
import { execTwice, tempDir } from '../exec/helpers.js';

const dirs: string[] = [];
/** Node 20's V8 version string, the one the flags are set on. */
const NODE20_V8 = '11.3.244.8-node.33';
/** True when this Node's V8 gets the flags (elsewhere the bootstrap leaves V8's tiering alone). */
const flagged = runtimeV8Flags([], undefined).length > 0;
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the V8 flags the bootstrap sets', () => {
  it('are all set when neither the command line nor NODE_OPTIONS names them', () => {
    const set: string[] = [];
    expect(applyRuntimeV8Flags({ setFlagsFromString: (f) => set.push(f) }, ['--enable-source-maps'], '--max-old-space-size=512', NODE20_V8)).toEqual([...RUNTIME_V8_FLAGS]);
    expect(set).toEqual([...RUNTIME_V8_FLAGS]);
  });

  it('leave a flag given on the command line or in NODE_OPTIONS (with - or _) as given', () => {
    expect(runtimeV8Flags(['--interrupt-budget=1000'], undefined, NODE20_V8)).toEqual(RUNTIME_V8_FLAGS.filter((f) => !f.startsWith('--interrupt-budget')));
    expect(runtimeV8Flags([], '--max_bytecode_size_for_early_opt=81', NODE20_V8)).toEqual(RUNTIME_V8_FLAGS.filter((f) => !f.startsWith('--max-bytecode-size-for-early-opt')));
  });

  it('are not set on a V8 they were not measured on (V8 prints an error for a flag it does not know)', () => {
    expect(runtimeV8Flags([], undefined, '13.6.233.10-node.18')).toEqual([]);
    expect(runtimeV8Flags([], undefined, NODE20_V8)).toEqual([...RUNTIME_V8_FLAGS]);
  });

  it.skipIf(!flagged)('keep a short exec run from a warm code cache out of the optimising compiler (--trace-opt reports no function marked)', async () => {
    const home = tempDir('minicode-v8-flags-');
    dirs.push(home);
    const [, warm] = await execTwice(home, { MINICODE_CODE_CACHE_DIR: path.join(home, 'v8') }, dirs, ['--trace-opt']);
    expect(warm.code, warm.stderr).toBe(0);
    // V8 prints its tracing on stdout, between the JSON lines.
    const lines = warm.stdout.split('\n');
    expect(lines.some((l) => l.startsWith('{') && (JSON.parse(l) as { type?: string }).type === 'summary')).toBe(true);
    expect(lines.filter((l) => /^\[(marking|compiling method|completed optimizing)\b/.test(l))).toEqual([]);
  });
});
