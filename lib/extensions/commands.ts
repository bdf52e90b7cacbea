/**
 * Custom slash commands: Markdown files whose body is a prompt, in `$MINICODE_HOME/commands/`
 * (the user's, beside the user config) and the project's `.minicode/commands/` (only with
 * `--allow-local-config`; a project command wins over a user one of the same name). The file
 * name is the command (`review.md` is `/review`; `git/commit.md` is `/git:commit`); front matter
 * `description`, `argument-hint`, `allowed-tools` and `model` as Claude Code reads them. The body
 * takes `$ARGUMENTS` (everything after the name) and `$1`, `$2`, ... (the arguments split on
 * spaces, quotes kept together).
 */
import path from 'node:path';
import { userConfigPath } from '../config-files.js';
import { minicodeToolName } from '../tools/claude-names.js';
import { DEFAULT_AUTO_TOOLS, type ApprovalPolicy } from '../policy/decide.js';
import { markdownFilesUnder, readMarkdown, stringField } from './markdown-files.js';

/** One custom command. */
export interface CustomCommand {
  /** Without the slash: `review`, `git:commit`. */
  name: string;
  description: string;
  argumentHint: string | undefined;
  /** Tools the command may use without asking (minicode names; `bash(PREFIX:*)` kept as written); empty: none beyond the policy's. */
  allowedTools: readonly string[];
  model: string | undefined;
  /** The prompt template. */
  body: string;
  file: string;
  scope: 'user' | 'project';
}

/** The custom commands of a run and what loading them ran into. */
export interface CustomCommands {
  /** By name, sorted. */
  commands: readonly CustomCommand[];
  problems: readonly string[];
}

/** Options of {@link loadCustomCommands}. */
export interface CustomCommandOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  allowLocalConfig: boolean;
  home?: string | undefined;
}

/** No custom commands. */
export const NO_COMMANDS: CustomCommands = Object.freeze({ commands: [], problems: [] });

const NAME = /^[A-Za-z0-9][\w.:-]{0,63}$/;

/** The user's folder of commands: beside the user config. */
export function userCommandsDir(env: NodeJS.ProcessEnv, home?: string): string {
  return path.join(path.dirname(userConfigPath(env, home)), 'commands');
}

/** Read the user's and (with `allowLocalConfig`) the project's commands. */
export function loadCustomCommands(options: CustomCommandOptions): CustomCommands {
  const byName = new Map<string, CustomCommand>();
  const problems: string[] = [];
  const folders: [string, CustomCommand['scope']][] = [[userCommandsDir(options.env, options.home), 'user']];
  if (options.allowLocalConfig) folders.push([path.join(options.cwd, '.minicode', 'commands'), 'project']);
  for (const [dir, scope] of folders) {
    for (const rel of markdownFilesUnder(dir, problems)) {
      const file = path.join(dir, rel);
      const name = rel.slice(0, -'.md'.length).split(path.sep).join(':');
      if (!NAME.test(name)) {
        problems.push(`${file}: "${name}" is not a command name (1-64 letters, digits, "_", "-", ".", ":")`);
        continue;
      }
      const parsed = readMarkdown(file, problems);
      if (!parsed) continue;
      const tools = parsed.fields['allowed-tools'];
      const listed =
        tools === undefined
          ? []
          : (typeof tools === 'string' ? splitTools(tools) : tools).map((t) => t.trim()).filter((t) => t !== '');
      byName.set(name, {
        name,
        description:
          stringField(parsed.fields, 'description') ??
          (parsed.body.split('\n')[0]?.slice(0, 80) || `(${scope} command)`),
        argumentHint: stringField(parsed.fields, 'argument-hint'),
        allowedTools: listed.map(toolOf),
        model: stringField(parsed.fields, 'model'),
        body: parsed.body,
        file,
        scope,
      });
    }
  }
  return { commands: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), problems };
}

/** `Bash(git add:*), Read` split at the commas outside parentheses. */
function splitTools(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** `Bash(git add:*)` -> `bash(git add:*)`, `Read` -> `read_file`. */
function toolOf(entry: string): string {
  const m = /^([^()]+)(\(.*\))?$/.exec(entry.trim());
  if (!m) return entry.trim();
  return `${minicodeToolName(m[1]!.trim())}${m[2] ?? ''}`;
}

/** A typed line as a command call: `/name args`; undefined when it names no command in `commands`. */
export function matchCommand(
  line: string,
  commands: CustomCommands,
): { command: CustomCommand; args: string } | undefined {
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (!m) return undefined;
  const command = commands.commands.find((c) => c.name === m[1]);
  return command ? { command, args: (m[2] ?? '').trim() } : undefined;
}

/** The arguments split on spaces, a quoted part ("a b" or 'a b') kept as one. */
export function splitArguments(args: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(args); m !== null; m = re.exec(args)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/**
 * The prompt a command call sends: its body with `$ARGUMENTS` and `$1`... replaced (a missing
 * positional argument is empty). A body that uses neither gets the arguments appended, so that
 * nothing typed is lost.
 */
export function expandCommand(command: CustomCommand, args: string): string {
  const positional = splitArguments(args);
  const uses = /\$ARGUMENTS|\$\d/.test(command.body);
  const expanded = command.body.replace(/\$ARGUMENTS|\$(\d+)/g, (all, n: string | undefined) =>
    n === undefined ? args : (positional[Number(n) - 1] ?? ''),
  );
  return uses || args === '' ? expanded : `${expanded}\n\n${args}`;
}

/** One line per command for a listing: `/name <hint> - description (scope)`. */
export function commandLines(commands: CustomCommands): string[] {
  return commands.commands.map(
    (c) => `/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ''} - ${c.description} (${c.scope})`,
  );
}

/**
 * The approval policy of a command's run: its `allowed-tools` run without asking, in `auto`
 * mode (the allowlist mode; `ask` keeps asking and `read-only` keeps refusing). `bash(PREFIX:*)`
 * allows commands starting with PREFIX: added to a command allowlist when the policy has one, or
 * made one when bash itself is not allowed (an allowed bash needs no prefix).
 */
export function policyForCommand(policy: ApprovalPolicy, command: CustomCommand): ApprovalPolicy {
  if (command.allowedTools.length === 0 || policy.mode !== 'auto') return policy;
  const prefixes: string[] = [];
  const tools: string[] = [];
  for (const entry of command.allowedTools) {
    const m = /^bash\((.*)\)$/.exec(entry);
    if (m) prefixes.push(m[1]!.replace(/:?\*$/, '').trim());
    else tools.push(entry);
  }
  const base = policy.allowTools ?? DEFAULT_AUTO_TOOLS;
  const next: ApprovalPolicy = { ...policy, allowTools: [...new Set([...base, ...tools])] };
  const usable = prefixes.filter((p) => p !== '');
  if (usable.length > 0) {
    if (policy.allowCommands && policy.allowCommands.length > 0)
      next.allowCommands = [...policy.allowCommands, ...usable];
    else if (!next.allowTools!.includes('bash')) next.allowCommands = usable;
  }
  return next;
}
