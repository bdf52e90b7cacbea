/**
 * An edit in the interactive mode, through a real terminal (tmux): the approval shows the diff
 * the edit would make once, with the keys to answer and no internal ids; once allowed, the
 * settled output shows the same diff (green and red with colour, plain `+`/`-` lines with
 * NO_COLOR); `minicode replay --linear` shows it again from the stored events. The provider is a
 * loopback replay server over the hand-made `chat-edit` cassette. Skipped where tmux is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { HAVE_TMUX, quitChat, startTerm, turnsDone, type TmuxTerm } from './tmux-driver.js';

if (!HAVE_TMUX) console.warn('skipping chat diff tmux tests: tmux is not installed (apt-get install -y tmux)');

const GREET = "function greet(name) {\n  return 'Hello ' + name;\n}\n\nmodule.exports = greet;\n";
const REMOVED = "-  return 'Hello ' + name;";
const ADDED = '+  return `Hello, ${name}!`;';

describe.skipIf(!HAVE_TMUX)('an edit in minicode chat', () => {
  const terms: TmuxTerm[] = [];
  afterAll(() => {
    for (const t of terms) t.kill();
  });

  for (const { cols, noColor } of [
    { cols: 120, noColor: false },
    { cols: 80, noColor: false },
    { cols: 40, noColor: true },
  ]) {
    it(`asks with the diff once, then shows it settled and in replay (${cols} columns, NO_COLOR ${noColor})`, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-chat-diff-'));
      const home = path.join(dir, 'home');
      const project = path.join(dir, 'project');
      fs.mkdirSync(project, { recursive: true });
      fs.writeFileSync(path.join(project, 'greet.js'), GREET);
      const env: Record<string, string> = {
        MINICODE_HOME: home,
        TERM: 'xterm-256color',
        ...(noColor ? { NO_COLOR: '1' } : {}),
      };
      const t = startTerm(
        ['chat', '--provider', 'replay', '--cwd', project, '--cassette', path.join(ROOT, 'test/cassettes/chat-edit')],
        { cols, rows: 40, cwd: project, env },
      );
      terms.push(t);
      await t.waitFor('New session');
      t.type('fix the greeting');
      t.send('Enter');
      const asking = await t.waitFor(/Answer: y allow once, a allow always,\s+n\s+deny/);
      expect(asking.replace(/\n(?=\(\+1 -1\))/, ' ')).toContain('Edit greet.js (+1 -1)?');
      expect(asking).toContain(`  ${REMOVED}`);
      expect(asking).toContain(`  ${ADDED}`);
      // Shown once, no internal ids, and nothing written before the answer.
      expect(asking.split(ADDED).length - 1).toBe(1);
      expect(asking).not.toMatch(/toolu_chat|approval-\d/);
      expect(fs.readFileSync(path.join(project, 'greet.js'), 'utf8')).toBe(GREET);
      t.send('y');
      const done = await t.waitFor(turnsDone(1));
      expect(done).toContain('files: modify greet.js (+1 -1)');
      expect(done.split(ADDED).length - 1).toBe(1);
      expect(done).toContain('The greeting now reads Hello, name!');
      const styled = t.captureStyled();
      if (noColor) expect(styled).not.toContain('\u001b');
      else {
        // Added lines green, removed red (SGR 32 / 31 around the line).
        expect(styled).toMatch(/\u001b\[32m {2}\+ {2}return `Hello, \$\{name\}!`;/);
        expect(styled).toMatch(/\u001b\[31m {2}- {2}return 'Hello ' \+ name;/);
      }
      expect(fs.readFileSync(path.join(project, 'greet.js'), 'utf8')).toContain('`Hello, ${name}!`');
      await quitChat(t);
      const end = await t.waitFor('EXIT=0', { join: true });
      const id = /session (ses_[a-z0-9_]+) \(minicode replay/.exec(end)![1]!;

      const replayed = await runCli(['replay', id, '--linear'], { env: { MINICODE_HOME: home } });
      expect(replayed.code).toBe(0);
      expect(replayed.stdout).toContain(
        `files: modify greet.js (+1 -1)\n  @@ -1,5 +1,5 @@\n   function greet(name) {\n  ${REMOVED}\n  ${ADDED}\n`,
      );
    });
  }
});
