import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCassette } from '../../lib/replay/cassette.js';
import { DEFAULT_TOOL_LIMITS, createToolRegistry, type ToolOutcome } from '../../lib/tools/index.js';
import { ROOT } from '../helpers/cli.js';
import { readTurn } from './wire.js';

const SAMPLE = path.join(ROOT, 'demo/sample-project');

function scratchCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-demo-'));
  fs.cpSync(SAMPLE, dir, { recursive: true });
  return dir;
}

describe('the demo cassette and the sample project', () => {
  it('start from a failing test', () => {
    const result = spawnSync(process.execPath, ['test.js'], { cwd: scratchCopy(), encoding: 'utf8' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('nmae is not defined');
  });

  it('agree: running the scripted tool calls with the real tools fixes the bug and passes the test', async () => {
    const cwd = scratchCopy();
    const cassette = loadCassette(path.join(ROOT, 'cassettes/demo'));
    const registry = createToolRegistry();
    const ctx = {
      cwd,
      signal: new AbortController().signal,
      approve: async () => 'deny' as const,
      limits: { ...DEFAULT_TOOL_LIMITS },
    };
    const outcomes: { name: string; outcome: ToolOutcome }[] = [];
    const turns = cassette.exchanges.map((e) => readTurn(cassette.manifest.format, e.body.toString('utf8')));
    for (const turn of turns) {
      expect(turn.terminated).toBe(true);
      for (const call of turn.calls)
        outcomes.push({ name: call.name, outcome: await registry.invoke(call.name, JSON.stringify(call.args), ctx) });
    }
    expect(outcomes.map((o) => `${o.name}:${o.outcome.status}`)).toEqual([
      'read_file:completed',
      'edit:completed',
      'bash:completed',
      'submit_result:completed',
    ]);
    expect(outcomes[0]!.outcome).toMatchObject({ output: expect.stringContaining("return 'Hello, ' + nmae + '!';") });
    expect(outcomes[1]!.outcome).toMatchObject({ fileChanges: [{ path: 'src/greet.js', kind: 'modify' }] });
    expect(outcomes[2]!.outcome).toMatchObject({ output: 'ok - 2 assertions passed\n', receipt: { exitCode: 0 } });
    expect(outcomes[3]!.outcome).toMatchObject({
      findings: [{ category: 'lint', severity: 'error' }],
      result: { fixed: true },
    });
    expect(turns[turns.length - 1]!.calls).toEqual([]);
    expect(fs.readFileSync(path.join(SAMPLE, 'src/greet.js'), 'utf8')).toContain('nmae');
  });
});
