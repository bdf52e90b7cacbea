/**
 * Skills (the open Agent Skills format): a folder with a `SKILL.md` (front matter `name` and
 * `description`, then the instructions) and any files beside it. Found in
 * `$MINICODE_HOME/skills/` (the user's), and with `--allow-local-config` the project's
 * `.minicode/skills/` and, when config `skills.readClaudeSkills` is on, `.claude/skills/`; a
 * later folder's skill wins over an earlier one of the same name. Only names and descriptions go
 * into the context (a section of the system prompt); the model loads a skill's instructions with
 * the `skill` tool when it needs them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { userConfigPath } from '../config-files.js';
import { readMarkdown, stringField } from './markdown-files.js';
import { dropExpected } from '../debug.js';

/** One skill. */
export interface Skill {
  name: string;
  description: string;
  /** The skill's folder (absolute): its other files are there. */
  dir: string;
  /** Its SKILL.md. */
  file: string;
  scope: 'user' | 'project';
}

/** The skills of a run and what loading them ran into. */
export interface SkillCatalogue {
  /** Sorted by name. */
  skills: readonly Skill[];
  problems: readonly string[];
}

/** No skills. */
export const NO_SKILLS: SkillCatalogue = Object.freeze({ skills: [], problems: [] });

/** Options of {@link loadSkills}. */
export interface SkillOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  allowLocalConfig: boolean;
  /** Also read the project's `.claude/skills/` (config `skills.readClaudeSkills`); default false. */
  readClaudeSkills?: boolean | undefined;
  home?: string | undefined;
}

/** Longest description kept in the system prompt's listing: 1,024 characters (the format's limit). */
export const MAX_SKILL_DESCRIPTION = 1024;

const NAME = /^[A-Za-z0-9][\w.-]{0,63}$/;

/** The user's folder of skills: beside the user config. */
export function userSkillsDir(env: NodeJS.ProcessEnv, home?: string): string {
  return path.join(path.dirname(userConfigPath(env, home)), 'skills');
}

/** Read the skills of every folder that applies. */
export function loadSkills(options: SkillOptions): SkillCatalogue {
  const byName = new Map<string, Skill>();
  const problems: string[] = [];
  const roots: [string, Skill['scope']][] = [[userSkillsDir(options.env, options.home), 'user']];
  if (options.allowLocalConfig) {
    if (options.readClaudeSkills) roots.push([path.join(options.cwd, '.claude', 'skills'), 'project']);
    roots.push([path.join(options.cwd, '.minicode', 'skills'), 'project']);
  }
  for (const [root, scope] of roots) {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(root, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') problems.push(`${root}: ${code ?? (error as Error).message}`);
      continue;
    }
    for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
      const dir = path.join(root, entry.name);
      const file = path.join(dir, 'SKILL.md');
      if (!fs.existsSync(file)) continue;
      const parsed = readMarkdown(file, problems);
      if (!parsed) continue;
      const name = stringField(parsed.fields, 'name') ?? entry.name;
      const description = stringField(parsed.fields, 'description');
      if (!NAME.test(name)) {
        problems.push(`${file}: the name "${name}" is not 1-64 letters, digits, "_", "-" or "."`);
        continue;
      }
      if (!description) {
        problems.push(`${file}: no description (the model picks a skill by it)`);
        continue;
      }
      byName.set(name, { name, description: description.slice(0, MAX_SKILL_DESCRIPTION), dir, file, scope });
    }
  }
  return { skills: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), problems };
}

/** The system prompt's section listing the skills (names and descriptions only); empty when there are none. */
export function skillsSection(catalogue: SkillCatalogue): string {
  if (catalogue.skills.length === 0) return '';
  return [
    '# Skills',
    'Skills are instructions for particular kinds of work, with files beside them. Only their names and descriptions are listed here: when a task matches one, call the skill tool with its name first, then follow what it returns (read the files it names from its folder as you need them).',
    ...catalogue.skills.map((s) => `- ${s.name}: ${s.description.replace(/\s+/g, ' ')}`),
  ].join('\n');
}

/** What the `skill` tool returns for one skill: its instructions, its folder and the files in it (at most 100). */
export function skillContent(skill: Skill): string {
  const text = readMarkdown(skill.file, [])?.body ?? '';
  const files: string[] = [];
  const walk = (sub: string, depth: number): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(skill.dir, sub), { withFileTypes: true });
    } catch (error) {
      // A folder that went away: its files are simply not listed.
      dropExpected('skill: listing its folder', error, 'ENOENT', 'ENOTDIR');
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (files.length >= 100) return;
      const rel = sub === '' ? e.name : path.join(sub, e.name);
      if (e.isDirectory() && depth < 3) walk(rel, depth + 1);
      else if (e.isFile() && rel !== 'SKILL.md') files.push(rel);
    }
  };
  walk('', 1);
  return [
    `# Skill: ${skill.name}`,
    `Folder: ${skill.dir}`,
    ...(files.length > 0
      ? [
          'Files in the folder (read them with read_file when the instructions call for them):',
          ...files.map((f) => `- ${f}`),
        ]
      : []),
    '',
    text,
  ].join('\n');
}
