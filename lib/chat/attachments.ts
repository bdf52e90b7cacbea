/**
 * What a message carries besides what was typed: the workspace files it names with `@path`, and
 * the `!command` runs since the last turn. Both go into the prompt as tagged blocks after the
 * text (`<file path="…">`, `<shell command="…" exit="…">`), so the stored user message is what
 * the model saw and a resumed session rebuilds the same conversation. Every block is bounded.
 *
 * `lib/render/attachments.ts` folds the blocks back to one line each for display.
 *
 * Only files of the workspace listing are attached (no `.gitignore`d file, nothing outside the
 * workspace, no symlink out of it), never a binary one.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

/** Most bytes of one attached file; default 32 KiB. */
export const MAX_ATTACHED_FILE_BYTES = 32 * 1024;
/** Most bytes attached to one message in all; default 128 KiB. */
export const MAX_ATTACHED_TOTAL_BYTES = 128 * 1024;

/** The `@path` words of a message, each once, in order (trailing punctuation is not part of a path). */
export function atPaths(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\s)@([^\s@]+)/g)) {
    const p = m[1]!.replace(/[,.;:!?)\]'"]+$/, '');
    if (p !== '' && !out.includes(p)) out.push(p);
  }
  return out;
}

/** One file as a prompt block, cut at `maxBytes` with a marker saying how much was left out. */
export function fileBlock(relPath: string, content: string, maxBytes: number = MAX_ATTACHED_FILE_BYTES): string {
  const bytes = Buffer.from(content, 'utf8');
  let body = content;
  if (bytes.length > maxBytes) {
    // Cut on a character boundary: drop a partial UTF-8 sequence at the end.
    body = bytes
      .subarray(0, maxBytes)
      .toString('utf8')
      .replace(/\uFFFD$/, '');
    body += `\n[… ${bytes.length - Buffer.byteLength(body)} more bytes not attached]`;
  }
  return `<file path="${relPath}">\n${body.endsWith('\n') ? body : `${body}\n`}</file>`;
}

/** The result of {@link attachFiles}. */
export interface Attached {
  /** The message with its file blocks. */
  prompt: string;
  /** Files attached, for the line the person sees. */
  files: string[];
  /** `@words` that were not attached, with why. */
  skipped: { path: string; reason: string }[];
}

/**
 * Attach the files `text` names with `@path`. `files` is the workspace listing: a path not in it
 * is not attached (ignored, outside the workspace, or no such file). Words in `exclude` (those
 * attached as images, lib/chat/image-attachments.ts) are left alone.
 */
export async function attachFiles(
  text: string,
  cwd: string,
  files: ReadonlySet<string>,
  exclude: readonly string[] = [],
): Promise<Attached> {
  const blocks: string[] = [];
  const attached: string[] = [];
  const skipped: Attached['skipped'] = [];
  let total = 0;
  for (const word of atPaths(text)) {
    if (exclude.includes(word)) continue;
    const rel = path.posix.normalize(word.replace(/^\.\//, ''));
    if (!files.has(rel)) {
      skipped.push({ path: word, reason: 'not a workspace file (or ignored by .gitignore)' });
      continue;
    }
    let content: string;
    try {
      content = await fs.readFile(path.join(cwd, rel), 'utf8');
    } catch (error) {
      skipped.push({ path: word, reason: (error as NodeJS.ErrnoException).code ?? 'unreadable' });
      continue;
    }
    if (content.includes('\u0000')) {
      skipped.push({ path: word, reason: 'binary file' });
      continue;
    }
    const room = Math.min(MAX_ATTACHED_FILE_BYTES, MAX_ATTACHED_TOTAL_BYTES - total);
    if (room <= 0) {
      skipped.push({ path: word, reason: `over the ${MAX_ATTACHED_TOTAL_BYTES / 1024} KiB a message may attach` });
      continue;
    }
    const block = fileBlock(rel, content, room);
    total += Math.min(room, Buffer.byteLength(content));
    blocks.push(block);
    attached.push(rel);
  }
  return { prompt: blocks.length === 0 ? text : `${text}\n\n${blocks.join('\n\n')}`, files: attached, skipped };
}

/** A `!command` run as a prompt block: the command, its exit, its (already bounded, scrubbed) output. */
export function shellBlock(command: string, exit: string, output: string): string {
  const quoted = command.replace(/"/g, '&quot;').replace(/\n/g, ' ');
  return `<shell command="${quoted}" exit="${exit}">\n${output.endsWith('\n') || output === '' ? output : `${output}\n`}</shell>`;
}
