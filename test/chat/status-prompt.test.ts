/**
 * `/status` in the interactive mode names the system prompt's digest and where it came from, and
 * the instruction files the session sends (paths come from the file system: shown neutralised).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { promptSettings, systemPromptFor, type PromptRecipe } from '../../lib/agent/prompt-settings.js';
import { providerSettings } from '../../lib/agent/provider-settings.js';
import { runLimits } from '../../lib/agent/run-limits.js';
import { toolEnvironment } from '../../lib/agent/tool-environment.js';
import { promptLines, runCommand } from '../../lib/chat/commands.js';
import { createChatSession } from '../../lib/chat/session.js';
import { withToolNote } from '../../lib/agent/system-prompt.js';
import { toolShapeFor } from '../../lib/tools/shapes.js';
import { openStore } from '../../lib/store/index.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('/status', () => {
  it('names the system prompt and the instruction files of the session', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-status-'));
    dirs.push(root);
    execFileSync('git', ['init', '-q'], { cwd: root });
    fs.writeFileSync(path.join(root, 'AGENTS.md'), 'run the tests\n');
    fs.mkdirSync(path.join(root, 'pkg\u001b[31m'));
    fs.writeFileSync(path.join(root, 'pkg\u001b[31m', 'CLAUDE.md'), 'pkg rules\n');
    const recipe: PromptRecipe = {
      base: undefined,
      append: 'Be brief.',
      instructions: 'discover',
      fallbackFiles: undefined,
      userDir: undefined,
    };
    const prompting = promptSettings({ recipe, system: systemPromptFor(recipe, path.join(root, 'pkg\u001b[31m')) });
    const store = openStore({ dir: path.join(root, '.store') });
    try {
      const session = createChatSession({
        provider: providerSettings({ format: 'anthropic', model: 'claude-sonnet-4-5', baseUrl: 'http://127.0.0.1:9' }),
        limits: runLimits(),
        environment: toolEnvironment(root, { env: {} }),
        prompting,
        store,
      });
      const lines = runCommand('/status', { session, store, cwd: root }).lines;
      // The digest of what a turn sends: Claude 4's tool shape adds its note to the prompt.
      const sent = withToolNote(
        prompting.system,
        toolShapeFor('anthropic', 'claude-sonnet-4-5').noteFor(() => true),
      );
      expect(sent.digest).not.toBe(prompting.system.digest);
      expect(lines).toContain(`System:  ${sent.digest.slice(0, 19)} - minicode's own + --append-system-prompt`);
      const files = lines.find((l) => l.startsWith('Instructions:'))!;
      expect(files).toContain('AGENTS.md (14 bytes, sha256:');
      expect(files).toContain('pkg/CLAUDE.md (10 bytes');
      expect(files).not.toContain('\u001b');
    } finally {
      await store.close();
    }
    expect(promptLines(promptSettings())).toEqual([
      `System:  ${promptSettings().system.digest.slice(0, 19)} - minicode's own`,
      'Instructions: off (--no-instructions)',
    ]);
  });
});
