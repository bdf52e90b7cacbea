import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';

// Hand-made input; the fake token is built at run time.
const ghp = 'ghp_' + 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5';

describe('minicode scrub', () => {
  it('filters stdin to stdout: escapes neutralised, secrets and credential env values redacted', async () => {
    const input = `log \u001b[31mred\u001b[0m ${ghp}\npassword = "hunter22x"\nvalue-of-env-secret-1\n`;
    const r = await runCli(['scrub'], { input, env: { SOME_SERVICE_TOKEN: 'value-of-env-secret-1' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'log red [REDACTED:github-token]\npassword = "[REDACTED:password]"\n[REDACTED:env:SOME_SERVICE_TOKEN]\n',
    );
    expect(r.stderr).toBe('');
  });

  it('reads a file in chunks and catches a secret across a chunk boundary', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-scrub-'));
    const file = path.join(dir, 'big.txt');
    // Place the token across the 64 KiB read boundary.
    const pad = 'x'.repeat(64 * 1024 - 20) + ' ';
    fs.writeFileSync(file, `${pad}${ghp} tail\n`);
    const r = await runCli(['scrub', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${pad}[REDACTED:github-token] tail\n`);
    fs.rmSync(dir, { recursive: true });
  });

  it('fails with a coded error on an unreadable file', async () => {
    const r = await runCli(['scrub', '/nonexistent/minicode-input']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('MINICODE_E_INPUT_UNREADABLE');
  });
});
