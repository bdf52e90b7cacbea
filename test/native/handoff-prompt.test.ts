import { describe, expect, it } from 'vitest';
import { buildHandoffPrompt, HANDOFF_LIMITS, type TranscriptEntry } from '../../lib/native/handoff-prompt.js';

const noGit = { git: false, status: '', diff: '', diffTruncated: false };

describe('the handoff prompt', () => {
  it('keeps the original task whole and drops the oldest transcript entries first past the cap', () => {
    const entries: TranscriptEntry[] = Array.from({ length: 40 }, (_, i) => ({
      agent: 'claude-code',
      fidelity: 'native',
      text: `assistant: entry ${i} ${'x'.repeat(1000)}`,
    }));
    const task = `t${'y'.repeat(30_000)}`;
    const prompt = buildHandoffPrompt({
      task,
      from: 'claude-code',
      cause: 'five_hour limit reached',
      entries,
      workspace: noGit,
    });
    expect(prompt.text).toContain(task);
    expect(prompt.droppedEntries + prompt.transcriptEntries).toBe(40);
    expect(prompt.droppedEntries).toBeGreaterThan(0);
    expect(prompt.text).toContain(`(${prompt.droppedEntries} older entries dropped to fit)`);
    expect(prompt.text).toContain('entry 39');
    expect(prompt.text).not.toContain('entry 0 ');
    const transcript = prompt.text
      .split('\n')
      .filter((l) => l.startsWith('[claude-code · native]'))
      .join('\n');
    expect(transcript.length).toBeLessThanOrEqual(HANDOFF_LIMITS.transcriptChars);
    expect(prompt.text).toContain('(not a git repository)');
  });
});
