/**
 * The shell session's pure core: a command's report (NUL-separated records from the wrapper's
 * builtins) read back, and the state kept from it. The wrapper itself runs in a real bash here;
 * the end-to-end runs under the sandbox are in test/exec/claude-bash.test.ts.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createShellSession,
  MAX_SHELL_STATE_BYTES,
  nextShellState,
  parseShellReport,
  SHELL_WRAPPER,
  shellEnv,
  type ShellReport,
} from '../../lib/tools/shell-session.js';

const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-shell-unit-')));
fs.mkdirSync(path.join(ws, 'sub'));

/** The report of `command` run by the wrapper in a real bash, read from its fd 4. */
function reportOf(command: string, env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' }) {
  const out = spawnSync('bash', ['-c', SHELL_WRAPPER, 'bash', command], {
    cwd: ws,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ignore', 'pipe'],
  });
  return { status: out.status, stdout: out.stdout.toString(), report: parseShellReport(out.output[4] as Buffer) };
}

describe('the shell report', () => {
  it('reads values with newlines, equals signs and spaces as they were exported', () => {
    const { report, stdout } = reportOf("export MULTI=$'a\\nb=c d'; cd sub; echo hi");
    expect(stdout).toBe('hi\n');
    expect(report!.end!.cwd).toBe(path.join(ws, 'sub'));
    expect(report!.end!.env.MULTI).toBe('a\nb=c d');
    expect(report!.start.MULTI).toBeUndefined();
  });

  it('reports after exit and after a command that empties PATH, with the exit status kept', () => {
    expect(reportOf('export A=1; exit 7')).toMatchObject({ status: 7, report: { end: { env: { A: '1' } } } });
    expect(reportOf('export PATH=; cd sub; ls').report!.end!.cwd).toBe(path.join(ws, 'sub'));
  });

  it('is no report without its start record, and has no end when it was cut before one', () => {
    expect(parseShellReport(Buffer.from('X=1\0'))).toBeUndefined();
    expect(parseShellReport(Buffer.from('start\0A=1\0en'))).toEqual({ start: { A: '1' }, end: undefined });
  });
});

describe('the state kept from a report', () => {
  const options = { workspace: ws, pass: [] as string[] };
  const before = { cwd: ws, env: {} };
  const report = (end: NonNullable<ShellReport['end']>, start: Record<string, string> = {}): ShellReport => ({
    start,
    end,
  });

  it("keeps the command's sets and unsets, not bash's own variables", () => {
    const next = nextShellState(
      before,
      report(
        { cwd: path.join(ws, 'sub'), env: { KEPT: 'x', SHLVL: '2', OLDPWD: '/', SAME: 's' } },
        { SAME: 's', GONE: 'g' },
      ),
      options,
    );
    expect(next).toEqual({ state: { cwd: path.join(ws, 'sub'), env: { KEPT: 'x', GONE: null } }, notes: [] });
    expect(shellEnv({ GONE: 'base', PATH: '/bin' }, next.state)).toEqual({ PATH: '/bin', KEPT: 'x' });
  });

  it('drops a credential unless the sandbox passes its name, and says which', () => {
    const end = { cwd: ws, env: { DB_PASSWORD: 'correct horse battery', GITHUB_TOKEN: 'ghp_' + 'a'.repeat(36) } };
    const dropped = nextShellState({ cwd: ws, env: { DB_PASSWORD: 'older value here' } }, report(end), options);
    expect(dropped.state.env).toEqual({});
    expect(dropped.notes).toEqual([
      '[shell] not kept for the next command: DB_PASSWORD, GITHUB_TOKEN (credential variables never reach commands)',
    ]);
    const passed = nextShellState(before, report(end), { workspace: ws, pass: ['GITHUB_*'] });
    expect(Object.keys(passed.state.env)).toEqual(['GITHUB_TOKEN']);
  });

  it('starts the next command at the workspace root when the command ended outside it or in a folder gone', () => {
    for (const cwd of ['/', path.dirname(ws), path.join(ws, 'missing'), 'relative']) {
      const next = nextShellState({ cwd: path.join(ws, 'sub'), env: {} }, report({ cwd, env: {} }), options);
      expect(next.state.cwd).toBe(ws);
      expect(next.notes[0]).toContain('not a folder inside the workspace');
    }
  });

  it("keeps none of a command's variable changes past the size cap", () => {
    const big = 'v'.repeat(MAX_SHELL_STATE_BYTES);
    const next = nextShellState(
      { cwd: ws, env: { OLD: '1' } },
      report({ cwd: ws, env: { OLD: '1', BIG: big } }, { OLD: '1' }),
      options,
    );
    expect(next.state.env).toEqual({ OLD: '1' });
    expect(next.notes[0]).toContain('not kept');
  });

  it('runs one command at a time, and a rerun starts from the state its refused call started from', async () => {
    const shell = createShellSession(ws);
    const order: string[] = [];
    const step = (name: string, cwd: string) =>
      shell.run(name, async (state) => {
        order.push(`${name} from ${path.basename(state.cwd)}`);
        await new Promise((resolve) => setImmediate(resolve));
        return { next: { cwd, env: {} }, value: name };
      });
    await Promise.all([step('a', path.join(ws, 'sub')), step('b', ws)]);
    await step('c.unsandboxed', ws);
    expect(order).toEqual([`a from ${path.basename(ws)}`, 'b from sub', 'c.unsandboxed from ' + path.basename(ws)]);
    await step('d', path.join(ws, 'sub'));
    await step('d.unsandboxed', path.join(ws, 'sub'));
    expect(order.at(-1)).toBe(`d.unsandboxed from ${path.basename(ws)}`);
    await shell.restart();
    expect(shell.current()).toEqual({ cwd: ws, env: {} });
  });
});
