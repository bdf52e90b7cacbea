/**
 * What a run tells the model besides the prompt, and what it asks back: the effective system
 * prompt (minicode's own or `--system-prompt`'s, `--append-system-prompt`'s text, the project
 * instructions) and, with `--output-schema`, the typed result it must submit. Filled once
 * where a run is set up (`prepareRun`) and passed whole; a batch line with its own `system`,
 * `instructions`, `outputSchema` or `cwd` gets settings rebuilt from the same recipe
 * ({@link promptSettingsFor}), since instructions are found from the folder the run works in.
 * It also holds the custom slash commands a prompt may call (lib/extensions/commands.ts).
 */
import { loadInstructions, NO_INSTRUCTIONS, sha256Of, type LoadedInstructions } from '../instructions/load.js';
import type { OutputSchema } from '../output-schema/compile.js';
import { composeSystemPrompt, type EffectiveSystemPrompt } from './system-prompt.js';
import { NO_COMMANDS, type CustomCommands } from '../extensions/commands.js';
import { NO_SKILLS, skillsSection, type SkillCatalogue } from '../extensions/skills.js';

/** How the system prompt of a run is made, before the working folder is known. */
export interface PromptRecipe {
  /** Replaces minicode's own prompt (`--system-prompt FILE`'s text, a batch line's `system`); undefined: minicode's own. */
  base: string | undefined;
  /** Added after it (`--append-system-prompt TEXT`); undefined: nothing. */
  append: string | undefined;
  /**
   * `discover`: the AGENTS.md layering of the run's folder; `false`: none (`--no-instructions`, a
   * batch line's `instructions: false`); text: this instead of any file (a batch line's `instructions`).
   */
  instructions: 'discover' | false | { text: string };
  /** Names tried where a folder has no AGENTS.md (config `instructions.fallbackFiles`). */
  fallbackFiles: readonly string[] | undefined;
  /** The user's own folder (`$MINICODE_HOME`, else `~/.config/minicode`); undefined: none. */
  userDir: string | undefined;
}

/** The prompt settings of a run; {@link promptSettings} fills the defaults. */
export interface PromptSettings {
  /** The system prompt sent, with its digest and instruction files; default minicode's own, no instructions. */
  system: EffectiveSystemPrompt;
  /** The typed result's schema (`submit_result` takes and checks it); undefined: a free-form result. */
  outputSchema: OutputSchema | undefined;
  /** Chances the model gets to submit a result matching `outputSchema` before the run ends `result_invalid`; default 3. */
  resultAttempts: number;
  /** How `system` was made, to make it again for another folder (a batch line). */
  recipe: PromptRecipe;
  /** The custom slash commands a prompt may call (`/name args`); default none. */
  commands: CustomCommands;
  /** The skills the model may load with the `skill` tool (their names and descriptions are in `system`); default none. */
  skills: SkillCatalogue;
}

/** The default number of chances to submit a valid typed result. */
export const DEFAULT_RESULT_ATTEMPTS = 3;

/** minicode's own prompt without instructions (runs set up without flags or config: tests, ACP defaults). */
export const PLAIN_RECIPE: Readonly<PromptRecipe> = Object.freeze({
  base: undefined,
  append: undefined,
  instructions: false,
  fallbackFiles: undefined,
  userDir: undefined,
});

/** The label of a batch line's inline instructions (in place of a file path). */
export const INLINE_INSTRUCTIONS = '(batch line instructions)';

/** The instructions a recipe gives in `cwd`. */
function instructionsOf(recipe: PromptRecipe, cwd: string): LoadedInstructions {
  const { instructions } = recipe;
  if (instructions === false) return NO_INSTRUCTIONS;
  if (instructions === 'discover')
    return loadInstructions({ cwd, userDir: recipe.userDir, fallbackFiles: recipe.fallbackFiles });
  const bytes = Buffer.byteLength(instructions.text);
  return {
    sections: [
      {
        file: { path: INLINE_INSTRUCTIONS, scope: 'project', bytes, sha256: sha256Of(instructions.text) },
        text: instructions.text,
      },
    ],
    diagnostics: [],
  };
}

/** The system prompt a recipe gives for a run in `cwd`, with the skills' listing. */
export function systemPromptFor(
  recipe: PromptRecipe,
  cwd: string,
  skills: SkillCatalogue = NO_SKILLS,
): EffectiveSystemPrompt {
  return composeSystemPrompt({
    base: recipe.base,
    append: recipe.append,
    instructions: instructionsOf(recipe, cwd),
    skills: skillsSection(skills),
  });
}

/** Prompt settings: `given` over the defaults (minicode's own prompt, no instructions, a free-form result). */
export function promptSettings(given: Partial<PromptSettings> = {}): PromptSettings {
  const recipe = given.recipe ?? PLAIN_RECIPE;
  return {
    system: given.system ?? composeSystemPrompt({ base: recipe.base, append: recipe.append }),
    outputSchema: undefined,
    resultAttempts: DEFAULT_RESULT_ATTEMPTS,
    recipe,
    commands: NO_COMMANDS,
    skills: NO_SKILLS,
    ...given,
  };
}

/** The settings of a run in `cwd` from a set-up's settings, with a recipe's fields replaced (a batch line's). */
export function promptSettingsFor(
  settings: PromptSettings,
  cwd: string,
  changes: Partial<PromptRecipe> = {},
  outputSchema: OutputSchema | undefined = settings.outputSchema,
): PromptSettings {
  const recipe = { ...settings.recipe, ...changes };
  return { ...settings, recipe, system: systemPromptFor(recipe, cwd, settings.skills), outputSchema };
}
