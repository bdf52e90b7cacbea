import { describe, expect, it } from 'vitest';
import { composeSystemPrompt, DEFAULT_SYSTEM_PROMPT } from '../../lib/agent/system-prompt.js';
import { SYSTEM_PROMPT_MAX_CHARS } from '../../lib/control/transcript.js';
import { sha256Of, type LoadedInstructions } from '../../lib/instructions/load.js';

const instructions: LoadedInstructions = {
  sections: [
    {
      file: { path: '/home/u/.config/minicode/AGENTS.md', scope: 'user', bytes: 9, sha256: sha256Of('be brief\n') },
      text: 'be brief\n',
    },
    {
      file: { path: 'AGENTS.md', scope: 'project', bytes: 14, sha256: sha256Of('run npm test\n') },
      text: 'run npm test\n',
    },
  ],
  diagnostics: [],
};

describe('the effective system prompt', () => {
  it('is minicode’s own by default, well under the cap, with its digest', () => {
    const prompt = composeSystemPrompt();
    expect(prompt.text).toBe(DEFAULT_SYSTEM_PROMPT);
    expect(DEFAULT_SYSTEM_PROMPT.length).toBeLessThan(SYSTEM_PROMPT_MAX_CHARS / 2);
    expect(prompt.digest).toBe(sha256Of(DEFAULT_SYSTEM_PROMPT));
    expect(prompt.instructionFiles).toEqual([]);
  });

  it('replaces the base, appends text after it, then the instructions most general first', () => {
    const prompt = composeSystemPrompt({ base: 'You grade answers.', append: 'Answer in French.', instructions });
    expect(prompt.text.startsWith('You grade answers.\n\nAnswer in French.\n\n# Project instructions')).toBe(true);
    expect(prompt.text).not.toContain('You are minicode');
    expect(prompt.text.indexOf('be brief')).toBeLessThan(prompt.text.indexOf('run npm test'));
    expect(prompt.text).toContain('## AGENTS.md\n\nrun npm test');
    expect(prompt.instructionFiles.map((f) => f.path)).toEqual(['/home/u/.config/minicode/AGENTS.md', 'AGENTS.md']);
  });

  it('gives a different digest for a different instruction file', () => {
    const other: LoadedInstructions = {
      sections: [{ ...instructions.sections[1]!, text: 'run pnpm test\n' }],
      diagnostics: [],
    };
    expect(composeSystemPrompt({ instructions }).digest).not.toBe(composeSystemPrompt({ instructions: other }).digest);
    expect(composeSystemPrompt({ instructions }).digest).toBe(composeSystemPrompt({ instructions }).digest);
  });

  it('caps the written part only: long instructions are not cut a second time', () => {
    const long: LoadedInstructions = {
      sections: [
        { file: { path: 'AGENTS.md', scope: 'project', bytes: 20_000, sha256: 'x' }, text: 'i'.repeat(20_000) },
      ],
      diagnostics: [],
    };
    const prompt = composeSystemPrompt({ base: 'b'.repeat(SYSTEM_PROMPT_MAX_CHARS + 10), instructions: long });
    expect(prompt.truncated).toBe(true);
    expect(prompt.text).toContain('system prompt truncated');
    expect(prompt.text.endsWith('i'.repeat(20_000))).toBe(true);
  });
});
