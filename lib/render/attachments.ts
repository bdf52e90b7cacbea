/**
 * The blocks the interactive mode appends to a message (`<file path="…">` for an `@path`,
 * `<shell command="…" exit="…">` for a `!command`, written by `lib/chat/attachments.ts`) folded
 * to one line each, so a person reads what they typed and what went with it, not whole files.
 * The stored event keeps the blocks: the model saw them, and JSONL and ACP show them as sent.
 */

/**
 * A stored user message as a person reads it: each attached block folded to one line
 * (`[attached src/a.js, 12 lines]`, `[ran !ls, exit 0, 3 lines]`), the typed text as it was.
 */
export function foldAttachments(text: string): string {
  return text.replace(
    /(?:\n\n)?<(file|shell) ([^>\n]*)>\n([\s\S]*?)<\/\1>/g,
    (_all, tag: string, attrs: string, body: string) => {
      const lines = body === '' ? 0 : body.replace(/\n$/, '').split('\n').length;
      const get = (name: 'path' | 'command' | 'exit'): string =>
        new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(attrs)?.[1] ?? '';
      const count = `${lines} ${lines === 1 ? 'line' : 'lines'}`;
      return tag === 'file'
        ? `\n[attached ${get('path')}, ${count}]`
        : `\n[ran !${get('command').replace(/&quot;/g, '"')}, exit ${get('exit')}, ${count}]`;
    },
  );
}
