/**
 * A failing command's stderr line quotes input (a flag value, a config entry); a credential in
 * that input is masked there as it is in every other output.
 */
import { describe, expect, it } from 'vitest';
import { MinicodeError } from '../../lib/errors.js';
import { failureLine } from '../../lib/failure-line.js';
import { runCli } from '../helpers/cli.js';

const TOKEN = 'ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

describe('failure lines on stderr', () => {
  it('mask a credential quoted by an error message, its code and its next action kept', () => {
    const error = new MinicodeError('MINICODE_E_CONFIG_INVALID', `unknown provider "${TOKEN}"`, {
      action: `remove ${TOKEN} from the config`,
    });
    const line = failureLine(error, { withCode: true });
    expect(line).not.toContain(TOKEN);
    expect(line).toMatch(
      /^minicode: unknown provider "\[REDACTED:[^\]]+\]" \[MINICODE_E_CONFIG_INVALID\]\n {2}remove \[REDACTED:[^\]]+\] from the config\n$/,
    );
  });

  it('mask a credential quoted by a usage error of the command-line parser', async () => {
    const r = await runCli(['run', '--agent', TOKEN, 'hi']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("argument '[REDACTED");
    expect(r.stderr).not.toContain(TOKEN);
  });
});
