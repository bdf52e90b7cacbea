/**
 * What a run reads from the folder it works in, besides its instructions: the hooks, custom slash
 * commands, skills and agent definitions of the project there (only with `--allow-local-config`)
 * over the user's own. A set-up is made in one folder (`--cwd`); a run that works in another
 * (a batch line with its own `cwd`, an ACP session in the client's folder) reads them again there
 * through {@link inFolder}, so a line or a session gets its own project's extensions, not those
 * of the folder the command was started in. The recipe is plain data: it crosses to a batch's
 * pool threads with the rest of a line's set-up.
 */
import fs from 'node:fs';
import type { LoadedConfig } from '../config-files.js';
import { loadCustomCommands, type CustomCommands } from '../extensions/commands.js';
import { loadSkills, type SkillCatalogue } from '../extensions/skills.js';
import type { HookSettings, HookSource } from '../hooks/settings.js';
import { loadAgentDefinitions, type AgentCatalogue } from './agent-definitions.js';
import type { OutputSchema } from '../output-schema/compile.js';
import { promptSettingsFor, type PromptRecipe, type PromptSettings } from './prompt-settings.js';
import type { ToolEnvironment } from './tool-environment.js';

/** How a run's folder extensions are found, before the folder is known. */
export interface FolderRecipe {
  /** `--allow-local-config`: the folder's project files count. */
  allowLocalConfig: boolean;
  /** The user config's `hooks` sections (a project's are read from the folder). */
  userHooks: readonly HookSource[];
  /** Config `hooks.readClaudeSettings`. */
  readClaudeSettings: boolean;
  /** Config `skills.readClaudeSkills`. */
  readClaudeSkills: boolean;
}

/** The extensions of one folder. */
export interface FolderExtensions {
  hooks: HookSettings | undefined;
  commands: CustomCommands;
  skills: SkillCatalogue;
  agents: AgentCatalogue;
}

/** The recipe of a loaded config and `--allow-local-config`. */
export function folderRecipeOf(loaded: LoadedConfig, allowLocalConfig: boolean): FolderRecipe {
  return {
    allowLocalConfig,
    userHooks: (loaded.hookSources ?? []).filter((s) => !s.local).map((s) => ({ file: s.file, section: s.section })),
    readClaudeSettings: loaded.config.hooks?.readClaudeSettings === true,
    readClaudeSkills: loaded.config.skills?.readClaudeSkills === true,
  };
}

/** Read the extensions of `cwd` by `recipe`. */
export async function folderExtensions(
  recipe: FolderRecipe,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<FolderExtensions> {
  const { allowLocalConfig } = recipe;
  return {
    hooks: await hooksOf(recipe, cwd),
    commands: loadCustomCommands({ env, cwd, allowLocalConfig }),
    skills: loadSkills({ env, cwd, allowLocalConfig, readClaudeSkills: recipe.readClaudeSkills }),
    agents: loadAgentDefinitions({ env, cwd, allowLocalConfig }),
  };
}

/** The hooks of `cwd`; the hooks module loads only when some file may hold hooks (most runs have none). */
async function hooksOf(recipe: FolderRecipe, cwd: string): Promise<HookSettings | undefined> {
  const { hookFilesOf, loadHookSettings } = await import('../hooks/load.js');
  const options = {
    userSources: recipe.userHooks,
    cwd,
    allowLocalConfig: recipe.allowLocalConfig,
    readClaudeSettings: recipe.readClaudeSettings,
  };
  if (recipe.userHooks.length === 0 && !hookFilesOf(options).some((file) => fs.existsSync(file))) return undefined;
  return loadHookSettings(options);
}

/** Options of {@link inFolder}. */
export interface InFolderOptions {
  /** The run's environment variables; default the set-up's. */
  env?: NodeJS.ProcessEnv | undefined;
  /** Fields of the prompt recipe the run replaces (a batch line's `system`, `instructions`). */
  changes?: Partial<PromptRecipe> | undefined;
  /** The run's output schema; default the set-up's. */
  outputSchema?: OutputSchema | undefined;
}

/**
 * A set-up's environment and prompt settings for a run in `cwd`: the folder's extensions,
 * instructions and system prompt in place of the set-up folder's. A set-up without a recipe
 * (made in code, with no config) keeps its extensions and only gets the folder's instructions.
 */
export async function inFolder(
  setup: { environment: ToolEnvironment; prompting: PromptSettings; folder?: FolderRecipe | undefined },
  cwd: string,
  options: InFolderOptions = {},
): Promise<{ environment: ToolEnvironment; prompting: PromptSettings }> {
  const env = options.env ?? setup.environment.env;
  const outputSchema = 'outputSchema' in options ? options.outputSchema : setup.prompting.outputSchema;
  const found =
    cwd !== setup.environment.cwd && setup.folder ? await folderExtensions(setup.folder, cwd, env) : undefined;
  const prompting = found ? { ...setup.prompting, commands: found.commands, skills: found.skills } : setup.prompting;
  return {
    environment: found
      ? { ...setup.environment, cwd, env, hooks: found.hooks, agents: found.agents }
      : { ...setup.environment, cwd, env },
    prompting: promptSettingsFor(prompting, cwd, options.changes, outputSchema),
  };
}
