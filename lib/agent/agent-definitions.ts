/**
 * Agent definitions for child sessions (the `task` tool's `subagent_type`): the two built in,
 * `general` (every tool the parent may use) and `explore` (read-only tools), and the user's and
 * the project's own as Markdown files with front matter (`name`, `description`, `tools`,
 * `model`; the body is the child's instructions), the shape Claude Code and opencode read:
 * `$MINICODE_HOME/agents/*.md` (else `~/.config/minicode/agents/`) and, only with
 * `--allow-local-config`, the workspace's `.minicode/agents/*.md` (a cloned repository must not
 * define the agents that work on it). The project's definition of a name wins over the user's,
 * and both over a built-in one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { userConfigPath } from '../config-files.js';
import { readMarkdown } from '../extensions/markdown-files.js';
import { minicodeToolName } from '../tools/claude-names.js';

/** Where a definition came from. */
export type AgentDefinitionSource = 'built-in' | 'user' | 'project';

/** One agent a child session may run. */
export interface AgentDefinition {
  name: string;
  description: string;
  /** Tool names the child gets (besides `submit_result`, which every child has); `all`: the parent's tools. */
  tools: readonly string[] | 'all';
  /** The child's model (same provider as the parent); undefined: the parent's. */
  model: string | undefined;
  /** Added to the child's system prompt; undefined: nothing. */
  instructions: string | undefined;
  source: AgentDefinitionSource;
  /** The file of a user or project definition. */
  file?: string;
}

/** The tools `explore` runs with: reading and searching, nothing that changes the workspace or runs a command. */
export const READ_ONLY_TOOLS: readonly string[] = Object.freeze([
  'read_file',
  'grep',
  'glob',
  'read_image',
  'update_plan',
]);

/** The built-in definitions. */
export const BUILT_IN_AGENTS: readonly AgentDefinition[] = Object.freeze([
  {
    name: 'general',
    description:
      'A general-purpose agent with the same tools as you: research, multi-step changes, anything that would fill your own context',
    tools: 'all',
    model: undefined,
    instructions: undefined,
    source: 'built-in',
  },
  {
    name: 'explore',
    description:
      'A read-only agent for finding and reading code (read_file, grep, glob): answers questions about the codebase without changing it',
    tools: READ_ONLY_TOOLS,
    model: undefined,
    instructions:
      'You only read and search: you cannot change files or run commands. Answer with what you found, citing paths and line numbers.',
    source: 'built-in',
  },
]);

/**
 * Tool names Claude Code's definitions use, as minicode names them, so that a definition
 * written for Claude Code works unchanged.
 */

/** The agent definitions of a run and what loading them ran into. */
export interface AgentCatalogue {
  /** By name. */
  agents: ReadonlyMap<string, AgentDefinition>;
  /** Files that could not be read or used, one line each. */
  problems: string[];
}

/** Options of {@link loadAgentDefinitions}. */
export interface AgentDefinitionOptions {
  env: NodeJS.ProcessEnv;
  /** The workspace, whose `.minicode/agents/` is read with `allowLocalConfig`. */
  cwd: string;
  /** `--allow-local-config`; default false. */
  allowLocalConfig?: boolean | undefined;
  /** Default `os.homedir()`. */
  home?: string | undefined;
}

/** The folder of the user's definitions: beside the user config. */
export function userAgentsDir(env: NodeJS.ProcessEnv, home: string = os.homedir()): string {
  return path.join(path.dirname(userConfigPath(env, home)), 'agents');
}

/** The built-in definitions, the user's and (with `allowLocalConfig`) the project's. */
export function loadAgentDefinitions(options: AgentDefinitionOptions): AgentCatalogue {
  const agents = new Map<string, AgentDefinition>(BUILT_IN_AGENTS.map((a) => [a.name, a]));
  const problems: string[] = [];
  const folders: [string, AgentDefinitionSource][] = [[userAgentsDir(options.env, options.home), 'user']];
  if (options.allowLocalConfig) folders.push([path.join(options.cwd, '.minicode', 'agents'), 'project']);
  for (const [dir, source] of folders) {
    for (const file of markdownFiles(dir, problems)) {
      const definition = definitionOf(file, source, problems);
      if (definition) agents.set(definition.name, definition);
    }
  }
  return { agents, problems };
}

/** The `.md` files of a folder, sorted; none when it does not exist. */
function markdownFiles(dir: string, problems: string[]): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.md'))
      .map((e) => path.join(dir, e.name))
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') problems.push(`${dir}: ${code ?? (error as Error).message}`);
    return [];
  }
}

/** One definition file read; undefined (with a problem) when it cannot be used. */
function definitionOf(file: string, source: AgentDefinitionSource, problems: string[]): AgentDefinition | undefined {
  const parsed = readMarkdown(file, problems);
  if (parsed === undefined) return undefined;
  const field = (key: string): string | undefined => {
    const v = parsed.fields[key];
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const name = field('name') ?? path.basename(file, '.md');
  if (!/^[A-Za-z0-9][\w.-]{0,63}$/.test(name)) {
    problems.push(`${file}: the name "${name}" is not 1-64 letters, digits, "_", "-" or "."`);
    return undefined;
  }
  const description = field('description');
  if (!description) {
    problems.push(`${file}: no description (the model picks an agent by it)`);
    return undefined;
  }
  const rawTools = parsed.fields.tools;
  const listed =
    rawTools === undefined
      ? undefined
      : (typeof rawTools === 'string' ? rawTools.split(',') : rawTools).map((t) => t.trim()).filter((t) => t !== '');
  const model = field('model');
  return {
    name,
    description,
    tools: listed === undefined || listed.includes('*') ? 'all' : listed.map(minicodeToolName),
    model: model === undefined || model === 'inherit' ? undefined : model,
    instructions: parsed.body === '' ? undefined : parsed.body,
    source,
    file,
  };
}

/** The catalogue of a run set up without definition files: the built-in agents only. */
export function builtInAgents(): AgentCatalogue {
  return { agents: new Map(BUILT_IN_AGENTS.map((a) => [a.name, a])), problems: [] };
}
