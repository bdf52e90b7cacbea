/**
 * `guardOutput` on a real pipe whose reader goes away: the EPIPE is swallowed, `closed` turns
 * true, a writer waiting for 'drain' is released, and later writes are no-ops. The reader is a
 * child process that never reads its stdin, so our writes fill the pipe until `write` says wait.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { guardOutput } from '../../cli/stdout.js';

describe('guardOutput', () => {
  it('releases a pending drain wait and turns writes into no-ops when the reader closes the pipe', async () => {
    const reader = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const out = guardOutput(reader.stdin);
    expect(guardOutput(reader.stdin)).toBe(out);
    const chunk = 'x'.repeat(64 * 1024);
    while (out.write(chunk)) {
      // Fill the pipe and the stream's buffer until backpressure.
    }
    const drained = out.drain();
    expect(out.closed).toBe(false);
    reader.kill('SIGKILL');
    await drained;
    expect(out.closed).toBe(true);
    expect(out.write('after')).toBe(true);
    await out.drain();
  });

  it('resolves drain at once when nothing is buffered', async () => {
    const reader = spawn(process.execPath, ['-e', 'process.stdin.resume()'], { stdio: ['pipe', 'ignore', 'ignore'] });
    const out = guardOutput(reader.stdin);
    await out.drain();
    expect(out.closed).toBe(false);
    reader.stdin.end();
    await new Promise((resolve) => reader.on('close', resolve));
  });
});
