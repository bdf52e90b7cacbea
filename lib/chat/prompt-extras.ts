/**
 * What the prompt adds to plain line editing, behind one small interface for the app: the
 * persisted history, `@path` completion over the workspace listing, and what goes with the next
 * message (the files and images it names or pastes, the `!command` runs since the last turn).
 */
import type { ImageAttachment } from '../images/load.js';
import { attachFiles } from './attachments.js';
import { attachImages } from './image-attachments.js';
import {
  applyCompletion,
  atWordAtCursor,
  commandSuggestions,
  completeCommand,
  completePath,
  MAX_CANDIDATES_SHOWN,
  slashWordAtCursor,
  type CommandEntry,
} from './completion.js';
import { appendHistory, historyPath, loadHistory } from './history-file.js';
import type { Editor } from './line-editor.js';
import { createWorkspaceFiles } from './workspace-files.js';

/** The prompt's extras for one interactive session. */
export interface PromptExtras {
  /** Earlier prompts to browse and search, oldest first. */
  readonly history: readonly string[];
  /** Keep a submitted line in the persisted history. */
  remember(text: string): void;
  /** Tab: the editor with the `@path` (or the `/command` of a line that is only one) at the cursor completed and lines to show under it; undefined when the cursor ends neither. */
  complete(editor: Editor): Promise<{ editor: Editor; hint: string[] } | undefined>;
  /** Keep a `!command` block for the next message. */
  keepShell(block: string): void;
  /** The prompt for a message: its text, the files it names, the kept `!command` blocks; its images; and lines saying what could not go with it. */
  expand(text: string): Promise<{ prompt: string; images: ImageAttachment[]; notes: string[] }>;
  /** Files may have changed (a turn ran): list them again at the next Tab. */
  invalidateFiles(): void;
  /** The lines under the prompt while a slash command's name is typed (the popup); none otherwise. */
  suggest(editor: Editor): string[];
}

/** Create the extras of a session in `cwd`; `earlier` are the resumed session's own prompts. */
export function createPromptExtras(options: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  earlier?: readonly string[];
  commands?: readonly CommandEntry[];
}): PromptExtras {
  const file = historyPath(options.env);
  const persisted = loadHistory(file);
  const seen = new Set(persisted);
  const history = [...persisted, ...(options.earlier ?? []).filter((p) => !seen.has(p))];
  const files = createWorkspaceFiles(options.cwd);
  let shell: string[] = [];
  return {
    history,
    remember(text) {
      appendHistory(file, text, options.env);
    },
    async complete(editor) {
      const slash = slashWordAtCursor(editor);
      if (slash !== undefined && options.commands) {
        const commands = options.commands;
        const result = completeCommand(
          slash,
          commands.map((c) => c.name),
        );
        const text = `/${result.text}`;
        const shown = (name: string): string => {
          const hint = commands.find((c) => c.name === name)?.hint;
          return `  /${name}${hint ? ` ${hint}` : ''}`;
        };
        const hint =
          result.matches.length === 0
            ? [`no command matches /${slash}`]
            : result.matches.length === 1
              ? [shown(result.matches[0]!).trim()]
              : result.matches.slice(0, MAX_CANDIDATES_SHOWN).map(shown);
        return { editor: { ...editor, lines: [text], col: text.length }, hint };
      }
      const at = atWordAtCursor(editor);
      if (!at) return undefined;
      const result = completePath(at.partial, await files.list());
      const hint =
        result.matches.length === 0
          ? [`no workspace file matches @${at.partial}`]
          : result.matches.length === 1
            ? []
            : [
                ...result.matches.slice(0, MAX_CANDIDATES_SHOWN).map((m) => `  @${m}`),
                ...(result.matches.length > MAX_CANDIDATES_SHOWN
                  ? [`  … ${result.matches.length - MAX_CANDIDATES_SHOWN} more`]
                  : []),
              ];
      return { editor: applyCompletion(editor, at, result.text), hint };
    },
    keepShell(block) {
      shell.push(block);
    },
    async expand(text) {
      const notes: string[] = [];
      let prompt = text;
      // Only what the person typed names files and images: `@` or a path in a command's output attaches nothing.
      const pictured = attachImages(text, options.cwd, { home: options.env.HOME });
      for (const s of pictured.skipped) notes.push(`  not attached ${s.path}: ${s.reason}`);
      if (/(?:^|\s)@\S/.test(text)) {
        const attached = await attachFiles(text, options.cwd, new Set(await files.list()), pictured.words);
        // What was attached shows in the message's own line; what was not is said here.
        for (const s of attached.skipped) notes.push(`  not attached @${s.path}: ${s.reason}`);
        prompt = attached.prompt;
      }
      if (shell.length > 0) {
        prompt = `${prompt}\n\n${shell.join('\n\n')}`;
        shell = [];
      }
      return { prompt, images: pictured.images, notes };
    },
    invalidateFiles() {
      files.invalidate();
    },
    suggest(editor) {
      const slash = slashWordAtCursor(editor);
      return slash === undefined || !options.commands ? [] : commandSuggestions(slash, options.commands);
    },
  };
}
