/**
 * Skills: folders with a SKILL.md in `$MINICODE_HOME/skills/` and (trusted) the project's
 * `.minicode/skills/`. Only their names and descriptions reach the provider until the model
 * calls the `skill` tool; then the instructions, the folder and its files come back as the tool
 * result. The provider is a loopback server that keeps every request body.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSkills } from '../../lib/extensions/skills.js';
import { startReplayServer, type Exchange, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { contentTypeOf, execJson, ofType, scratchProject, tempDir, turnBody } from '../exec/helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const turn = (t: { text?: string; calls?: { id: string; name: string; args: unknown }[] }, n: number): Exchange =>
  streamOk(turnBody('openai-chat', t, n), contentTypeOf('openai-chat'));

const BODY = 'Release checklist: bump the version in package.json, then run scripts/release.sh.';

/** A home with the skill `release` (a SKILL.md and a script beside it). */
function homeWithSkill(): string {
  const home = tempDir('minicode-home-');
  const dir = path.join(home, 'skills', 'release');
  fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'SKILL.md'),
    `---\nname: release\ndescription: How to cut a release of this project\n---\n${BODY}\n`,
  );
  fs.writeFileSync(path.join(dir, 'scripts', 'release.sh'), '#!/bin/bash\necho release\n');
  return home;
}

describe('skills', () => {
  it('are read from the user folder always, from the project only with --allow-local-config, and need a description', () => {
    const home = homeWithSkill();
    const project = tempDir('minicode-project-');
    fs.mkdirSync(path.join(project, '.minicode', 'skills', 'lint'), { recursive: true });
    fs.writeFileSync(
      path.join(project, '.minicode', 'skills', 'lint', 'SKILL.md'),
      '---\ndescription: Lint the code\n---\nRun the linter.',
    );
    fs.mkdirSync(path.join(project, '.minicode', 'skills', 'bare'), { recursive: true });
    fs.writeFileSync(path.join(project, '.minicode', 'skills', 'bare', 'SKILL.md'), 'No front matter.');
    expect(
      loadSkills({ env: { MINICODE_HOME: home }, cwd: project, allowLocalConfig: false }).skills.map((s) => s.name),
    ).toEqual(['release']);
    const trusted = loadSkills({ env: { MINICODE_HOME: home }, cwd: project, allowLocalConfig: true });
    expect(trusted.skills.map((s) => [s.name, s.scope])).toEqual([
      ['lint', 'project'],
      ['release', 'user'],
    ]);
    expect(trusted.problems.join('\n')).toContain('no description');
  });

  it('reach the model as names and descriptions only, and a skill is loaded only when the model calls the skill tool', async () => {
    const server = await startReplayServer([
      turn(
        {
          text: 'Let me check how releases work.',
          calls: [{ id: 'call_skill', name: 'skill', args: { name: 'release' } }],
        },
        1,
      ),
      turn({ text: 'Bump the version, then run the script.' }, 2),
    ]);
    servers.push(server);
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], {
      cwd: scratchProject(),
      home: homeWithSkill(),
      env: { OPENAI_BASE_URL: `${server.origin}/v1`, OPENAI_API_KEY: 'sk-proj-skillsFakeKey0123456789abcdefgh' },
      prompt: 'How do I cut a release?',
    });
    expect(run.code, run.stderr).toBe(0);
    const first = server.requests[0]!.body;
    expect(first).toContain('release: How to cut a release of this project');
    expect(first).toContain('"name":"skill"');
    expect(first).not.toContain('Release checklist');
    const second = server.requests[1]!.body;
    expect(second).toContain(BODY);
    expect(second).toContain(path.join('skills', 'release'));
    expect(second).toContain(path.join('scripts', 'release.sh'));
    expect(ofType(run.records, 'tool.completed')[0]!.payload).toMatchObject({
      name: 'skill',
      summary: 'loaded skill release',
    });
  });

  it('leave the tool list and the system prompt as they were when there is none', async () => {
    const server = await startReplayServer([turn({ text: 'Hi.' }, 1)]);
    servers.push(server);
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], {
      cwd: scratchProject(),
      env: { OPENAI_BASE_URL: `${server.origin}/v1`, OPENAI_API_KEY: 'sk-proj-skillsFakeKey0123456789abcdefgh' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests[0]!.body).not.toContain('"name":"skill"');
    expect(server.requests[0]!.body).not.toContain('# Skills');
  });
});
