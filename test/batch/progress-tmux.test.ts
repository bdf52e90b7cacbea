/**
 * The batch progress bar in a real terminal (tmux): two slow lines (the chat-slow cassette
 * streams each first answer for several seconds), the window narrowed from 120 to 50 columns
 * while the bar is drawn. The bar is redrawn in place: once the batch ends, the pane (its
 * history included) holds one progress line and the closing line. Skipped where tmux is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { HAVE_TMUX, startTerm, type TmuxTerm } from '../chat/tmux-driver.js';

if (!HAVE_TMUX) console.warn('skipping batch progress tmux test: tmux is not installed (apt-get install -y tmux)');

describe.skipIf(!HAVE_TMUX)('the batch progress bar in a terminal', () => {
  const terms: TmuxTerm[] = [];
  afterAll(() => {
    for (const t of terms) t.kill();
  });

  it('leaves one progress line after the window narrows mid-run', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-progress-tmux-'));
    const input = path.join(dir, 'in.jsonl');
    fs.writeFileSync(
      input,
      `${JSON.stringify({ id: 'slow-1', prompt: 'count slowly' })}\n${JSON.stringify({ id: 'slow-2', prompt: 'count slowly' })}\n`,
    );
    const cassette = path.join(ROOT, 'test/cassettes/chat-slow');
    const t = startTerm(
      [
        'batch',
        input,
        '--provider',
        'replay',
        '--cassette',
        cassette,
        '--concurrency',
        '1',
        '--threads',
        '0',
        '--out',
        path.join(dir, 'out'),
        '--store',
        path.join(dir, 'store'),
      ],
      {
        cols: 120,
        rows: 30,
        cwd: dir,
        env: { MINICODE_HOME: path.join(dir, 'home'), TERM: 'xterm-256color', NO_COLOR: '1' },
        // Earlier output above the bar, as a shell prompt leaves: tmux keeps the cursor's row when it
        // reflows and pushes rows a narrower width adds off the top, where no program can erase them.
        before: ['$ earlier command', '$ earlier command', '$ earlier command', '$ earlier command'],
      },
    );
    terms.push(t);
    await t.waitFor(/\[[#.]{20}\] 0\/2 done, 0 failed, 1 running/);
    t.resize(50, 30);
    const end = await t.waitFor('EXIT=', { join: true, timeoutMs: 60_000 });
    expect(end).toMatch(/minicode batch: 2 completed, 0 failed, 0 pending of 2, \$\d+\.\d{4}; /);
    // The whole pane, history included, each wrapped row joined back into its line.
    const all = t.captureAll();
    expect(all.match(/\[[#.]{20}\]/g), all).toHaveLength(1);
    expect(all).toMatch(/^\[#{20}\] 2\/2 done/m);
  }, 90_000);
});
