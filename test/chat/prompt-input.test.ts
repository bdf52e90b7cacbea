/**
 * The pure and near-pure parts of the prompt's extras: `@path` completion and attachment over a
 * real scratch workspace (with a `.gitignore` and a symlink out of it), the folded display of
 * what went with a message, the per-user history file, Ctrl+R search, and `!command` through
 * the real bash tool (a real subprocess) under the approval policy.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { atPaths, attachFiles, fileBlock, MAX_ATTACHED_FILE_BYTES, shellBlock } from '../../lib/chat/attachments.js';
import { applyCompletion, atWordAtCursor, completePath } from '../../lib/chat/completion.js';
import { appendHistory, historyPath, loadHistory } from '../../lib/chat/history-file.js';
import { searchKey, searchPrompt, startSearch } from '../../lib/chat/history-search.js';
import { decodeKey } from '../../lib/chat/keys.js';
import { applyKey, createEditor, MAX_HISTORY } from '../../lib/chat/line-editor.js';
import { createPromptExtras } from '../../lib/chat/prompt-extras.js';
import { runShellCommand } from '../../lib/chat/shell-command.js';
import { createWorkspaceFiles } from '../../lib/chat/workspace-files.js';
import { foldAttachments } from '../../lib/render/attachments.js';

function workspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-prompt-'));
  const files: Record<string, string> = {
    'src/greet.js': 'module.exports = (n) => `hi ${n}`;\n',
    'src/grow.js': 'grow\n',
    'README.md': '# readme\n',
    '.gitignore': '.env\nlogs/\n',
    '.env': 'API_KEY=sk-live-0123456789abcdef\n',
    'logs/run.log': 'noise\n',
    'bin.dat': 'a\u0000b',
  };
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-outside-'));
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside\n');
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'link.txt'));
  return dir;
}

const typed = (text: string) => applyKey(createEditor(), { kind: 'insert', text });

describe('@path completion', () => {
  it('finds the @word at the cursor and nothing elsewhere', () => {
    expect(atWordAtCursor(typed('look at @src/gr'))).toEqual({ partial: 'src/gr', start: 8 });
    expect(atWordAtCursor(typed('@'))).toEqual({ partial: '', start: 0 });
    expect(atWordAtCursor(typed('mail me@example.com'))).toBeUndefined();
    expect(atWordAtCursor(typed('no at word'))).toBeUndefined();
  });

  it('completes as far as the matches agree, a single match whole with a space', () => {
    const files = ['README.md', 'src/greet.js', 'src/grow.js'];
    expect(completePath('src/g', files)).toEqual({ text: 'src/gr', matches: ['src/greet.js', 'src/grow.js'] });
    expect(completePath('src/gre', files)).toEqual({ text: 'src/greet.js ', matches: ['src/greet.js'] });
    // No prefix match: a part of the path anywhere, ignoring case.
    expect(completePath('GROW', files)).toEqual({ text: 'src/grow.js ', matches: ['src/grow.js'] });
    expect(completePath('nothing', files).matches).toEqual([]);
    const editor = typed('see @src/gre please');
    const cursorAfterWord = { ...editor, col: 'see @src/gre'.length };
    const at = atWordAtCursor(cursorAfterWord)!;
    expect(applyCompletion(cursorAfterWord, at, 'src/greet.js ').lines[0]).toBe('see @src/greet.js  please');
  });

  it('lists workspace files without ignored ones and without following a symlink out', async () => {
    const files = await createWorkspaceFiles(workspace()).list();
    expect(files).toContain('src/greet.js');
    expect(files).not.toContain('.env');
    expect(files).not.toContain('logs/run.log');
    expect(files).not.toContain('link.txt');
  });

  it('maps Tab to completion and Ctrl+R to history search', () => {
    expect(decodeKey('\t', { name: 'tab', sequence: '\t' })).toEqual({ kind: 'complete' });
    expect(decodeKey('\u0012', { name: 'r', ctrl: true })).toEqual({ kind: 'history-search' });
  });
});

describe('attachments', () => {
  it('reads the @paths of a message, each once, without trailing punctuation', () => {
    expect(atPaths('see @src/a.js, then @b.md. Also @src/a.js')).toEqual(['src/a.js', 'b.md']);
  });

  it('attaches workspace files and refuses ignored, outside, binary and unknown ones', async () => {
    const dir = workspace();
    const files = new Set(await createWorkspaceFiles(dir).list());
    const r = await attachFiles('fix @src/greet.js with @.env @link.txt @bin.dat @../x @nope.js', dir, files);
    expect(r.files).toEqual(['src/greet.js']);
    expect(r.prompt).toBe(
      'fix @src/greet.js with @.env @link.txt @bin.dat @../x @nope.js\n\n<file path="src/greet.js">\nmodule.exports = (n) => `hi ${n}`;\n</file>',
    );
    expect(r.skipped.map((s) => s.path)).toEqual(['.env', 'link.txt', 'bin.dat', '../x', 'nope.js']);
    expect(r.skipped.find((s) => s.path === 'bin.dat')!.reason).toBe('binary file');
    expect(r.prompt).not.toContain('sk-live');
    expect(r.prompt).not.toContain('outside');
  });

  it('bounds a large file with a marker', () => {
    const block = fileBlock('big.txt', 'é'.repeat(MAX_ATTACHED_FILE_BYTES));
    expect(Buffer.byteLength(block)).toBeLessThan(MAX_ATTACHED_FILE_BYTES + 200);
    expect(block).toMatch(/\[… \d+ more bytes not attached\]\n<\/file>$/);
    expect(block).not.toContain('\uFFFD');
  });

  it('fold to one line each for people', () => {
    const text = `fix it\n\n${fileBlock('src/a.js', 'a\nb\n')}\n\n${shellBlock('npm test', '1', 'x\ny\nz\n')}`;
    expect(foldAttachments(text)).toBe('fix it\n[attached src/a.js, 2 lines]\n[ran !npm test, exit 1, 3 lines]');
    expect(foldAttachments('plain text')).toBe('plain text');
  });

  it('go with the next message: files it names and the kept !command output', async () => {
    const dir = workspace();
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-home-'));
    const extras = createPromptExtras({ cwd: dir, env: { MINICODE_HOME: home } });
    extras.keepShell(shellBlock('ls', '0', 'README.md\n'));
    const first = await extras.expand('look at @README.md and @.env');
    expect(first.prompt).toBe(
      'look at @README.md and @.env\n\n<file path="README.md">\n# readme\n</file>\n\n<shell command="ls" exit="0">\nREADME.md\n</shell>',
    );
    expect(first.notes).toEqual(['  not attached @.env: not a workspace file (or ignored by .gitignore)']);
    // Kept output goes with one message only.
    expect((await extras.expand('again')).prompt).toBe('again');
  });
});

describe('prompt history', () => {
  it('persists per user under MINICODE_HOME, scrubbed, bounded, and survives a torn line', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-home-'));
    const env = { MINICODE_HOME: home, OPENAI_API_KEY: 'sk-proj-abcdefghijklmnop1234' };
    const file = historyPath(env);
    expect(file).toBe(path.join(home, 'history.jsonl'));
    appendHistory(file, 'first', env);
    appendHistory(file, 'use key sk-proj-abcdefghijklmnop1234 here', env);
    fs.appendFileSync(file, '"torn');
    expect(loadHistory(file)[0]).toBe('first');
    expect(loadHistory(file)[1]).not.toContain('sk-proj-abcdefghijklmnop1234');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    fs.writeFileSync(file, '');
    for (let i = 0; i < 2 * MAX_HISTORY + 5; i++) appendHistory(file, `p${i}`, env);
    const kept = loadHistory(file);
    expect(kept).toHaveLength(MAX_HISTORY);
    expect(kept[kept.length - 1]).toBe(`p${2 * MAX_HISTORY + 4}`);
    expect(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length).toBeLessThanOrEqual(2 * MAX_HISTORY);
  });

  it('is searched backwards by Ctrl+R: typing narrows, Ctrl+R again goes older', () => {
    const history = ['npm test', 'fix the build', 'npm run lint', 'explain @src/a.js'];
    let s = startSearch(history);
    expect(s.match).toBe(3);
    s = searchKey(s, history, { kind: 'type', text: 'n' });
    s = searchKey(s, history, { kind: 'type', text: 'pm' });
    expect(history[s.match!]).toBe('npm run lint');
    s = searchKey(s, history, { kind: 'older' });
    expect(history[s.match!]).toBe('npm test');
    // Nothing older: the match stays.
    expect(searchKey(s, history, { kind: 'older' }).match).toBe(0);
    s = searchKey(s, history, { kind: 'type', text: 'zzz' });
    expect(s.match).toBeUndefined();
    expect(searchPrompt(s)).toBe("failing search 'npmzzz': ");
    for (let i = 0; i < 3; i++) s = searchKey(s, history, { kind: 'backspace' });
    expect(history[s.match!]).toBe('npm run lint');
  });
});

describe('!command', () => {
  it('runs in the workspace without credential variables and keeps its scrubbed output', async () => {
    const dir = workspace();
    const env = { PATH: process.env.PATH, HOME: dir, ANTHROPIC_API_KEY: 'sk-ant-api03-abcdefghijklmnopqrstuvwx' };
    const r = await runShellCommand(
      'pwd; echo "key=${ANTHROPIC_API_KEY:-absent}"; echo sk-ant-api03-abcdefghijklmnopqrstuvwx',
      {
        cwd: dir,
        env,
        signal: new AbortController().signal,
      },
    );
    expect(r.lines[0]).toBe(`  ${fs.realpathSync(dir)}`);
    expect(r.lines).toContain('  key=absent');
    expect(r.lines.join('\n')).not.toContain('sk-ant-api03-abcdefghijklmnopqrstuvwx');
    expect(r.lines[r.lines.length - 1]).toBe('✓ exit 0 (kept for the next message)');
    expect(r.block).toMatch(/^<shell command="pwd; echo .*" exit="0">\n/);
    expect(r.block).not.toContain('sk-ant-api03-abcdefghijklmnopqrstuvwx');
  });

  it('runs without asking, as the person typed it, and keeps a failing exit code', async () => {
    const dir = workspace();
    const base = { cwd: dir, env: { PATH: process.env.PATH }, signal: new AbortController().signal };
    const made = await runShellCommand('touch made.txt', base);
    expect(made.lines).toEqual(['  (no output)', '✓ exit 0 (kept for the next message)']);
    expect(fs.existsSync(path.join(dir, 'made.txt'))).toBe(true);
    const failed = await runShellCommand('echo out; exit 3', base);
    expect(failed.lines).toEqual(['  out', '✗ command exited with code 3 (kept for the next message)']);
    expect(failed.block).toContain('exit="3"');
  });
});
