/**
 * Claude Code's names of minicode's tools, one table for every file written for Claude Code that
 * names tools: agent definitions (`tools`), hook matchers (`Bash`, `Edit|Write`), slash commands
 * (`allowed-tools`).
 */

/** Claude Code's tool name -> minicode's. */
export const CLAUDE_TOOL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  Read: 'read_file',
  Write: 'write_file',
  Edit: 'edit',
  MultiEdit: 'edit',
  Bash: 'bash',
  Grep: 'grep',
  Glob: 'glob',
  TodoWrite: 'update_plan',
  Task: 'task',
});

/** minicode's name of a tool named either way (`Bash` -> `bash`, `bash` -> `bash`). */
export function minicodeToolName(name: string): string {
  return CLAUDE_TOOL_ALIASES[name] ?? name;
}

/** The Claude Code names of a minicode tool (`edit` -> `Edit`, `MultiEdit`); none for most. */
export function claudeNamesOf(name: string): string[] {
  return Object.entries(CLAUDE_TOOL_ALIASES)
    .filter(([, ours]) => ours === name)
    .map(([theirs]) => theirs);
}
