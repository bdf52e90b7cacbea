import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashTool } from '../../lib/tools/bash.js';
import { editTool } from '../../lib/tools/edit.js';
import { readFileTool } from '../../lib/tools/read-file.js';
import type { ToolFileSystem, ToolTerminal } from '../../lib/tools/types.js';
import { writeFileTool } from '../../lib/tools/write-file.js';
import { context, scratch } from './helpers.js';

/** An editor-like file system: buffers over the disk, writes stay in the buffers. */
function buffers(initial: Record<string, string>): ToolFileSystem & { calls: string[]; files: Map<string, string> } {
  const files = new Map(Object.entries(initial));
  const calls: string[] = [];
  return {
    files,
    calls,
    async readTextFile(file) {
      calls.push(`read ${file}`);
      const text = files.get(file);
      if (text === undefined) throw Object.assign(new Error(`no buffer for ${file}`), { code: 'ENOENT' });
      return text;
    },
    async writeTextFile(file, content) {
      calls.push(`write ${file}`);
      files.set(file, content);
    },
  };
}

describe('the file tools with a surface file system', () => {
  it('read_file reads the buffer, not the disk', async () => {
    const dir = scratch({ 'a.txt': 'on disk\n' });
    const hook = buffers({ [path.join(dir, 'a.txt')]: 'unsaved buffer\n' });
    const { ctx } = context(dir, { fs: hook });
    expect(await readFileTool.run({ path: 'a.txt' }, ctx)).toMatchObject({
      status: 'completed',
      output: '1\tunsaved buffer',
    });
    expect(hook.calls).toEqual([`read ${path.join(dir, 'a.txt')}`]);
  });

  it('edit reads and writes through the hook and leaves the disk alone', async () => {
    const dir = scratch({ 'a.txt': 'hello old\n' });
    const file = path.join(dir, 'a.txt');
    const hook = buffers({ [file]: 'hello old\n' });
    const { ctx } = context(dir, { fs: hook });
    expect(await editTool.run({ path: 'a.txt', old_string: 'old', new_string: 'new' }, ctx)).toMatchObject({
      status: 'completed',
    });
    expect(hook.files.get(file)).toBe('hello new\n');
    expect(fs.readFileSync(file, 'utf8')).toBe('hello old\n');
  });

  it('write_file writes through the hook; a hook failure is a failed outcome', async () => {
    const dir = scratch();
    const hook = buffers({});
    const { ctx } = context(dir, { fs: hook });
    expect(await writeFileTool.run({ path: 'new.txt', content: 'x' }, ctx)).toMatchObject({
      status: 'completed',
      fileChanges: [{ path: 'new.txt', kind: 'create' }],
    });
    expect(hook.files.get(path.join(dir, 'new.txt'))).toBe('x');
    expect(fs.existsSync(path.join(dir, 'new.txt'))).toBe(false);
    const failing = context(dir, {
      fs: {
        readTextFile: () => Promise.reject(new Error('client gone')),
        writeTextFile: () => Promise.reject(new Error('client gone')),
      },
    });
    expect(await writeFileTool.run({ path: 'new.txt', content: 'x' }, failing.ctx)).toMatchObject({
      status: 'failed',
      cause: 'FILESYSTEM_ERROR',
    });
    expect(await readFileTool.run({ path: 'new.txt' }, failing.ctx)).toMatchObject({
      status: 'failed',
      cause: 'FILESYSTEM_ERROR',
    });
  });
});

describe('bash with a surface terminal', () => {
  it('runs the command line in the terminal and maps its exit', async () => {
    const seen: unknown[] = [];
    const terminal: ToolTerminal = {
      async run(command) {
        seen.push(command);
        return { output: 'hi\n', truncated: false, exitCode: command.args[1] === 'false' ? 1 : 0, signal: null };
      },
    };
    const dir = scratch();
    const { ctx } = context(dir, { terminal, toolCallId: 'call_1' });
    expect(await bashTool.run({ command: 'echo hi' }, ctx)).toMatchObject({
      status: 'completed',
      output: 'hi\n',
      receipt: { exitCode: 0 },
    });
    expect(seen[0]).toMatchObject({ command: 'bash', args: ['-c', 'echo hi'], cwd: dir, toolCallId: 'call_1' });
    expect(await bashTool.run({ command: 'false' }, ctx)).toMatchObject({
      status: 'failed',
      message: 'command exited with code 1',
    });
  });

  it('aborts the terminal when the run is cancelled', async () => {
    const abort = new AbortController();
    const terminal: ToolTerminal = {
      run: (_command, signal) =>
        new Promise((resolve) =>
          signal.addEventListener(
            'abort',
            () => resolve({ output: 'partial', truncated: false, exitCode: null, signal: 'SIGTERM' }),
            { once: true },
          ),
        ),
    };
    const { ctx } = context(scratch(), { terminal, signal: abort.signal });
    const running = bashTool.run({ command: 'sleep 100' }, ctx);
    abort.abort();
    expect(await running).toMatchObject({ status: 'failed', cause: 'USER_ERROR', output: 'partial' });
  });
});
