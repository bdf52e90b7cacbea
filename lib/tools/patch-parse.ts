/**
 * The parser of the `apply_patch` format (the file-oriented patch language OpenAI's coding models
 * are trained to write). Its grammar:
 *
 *   patch   := "*** Begin Patch" LF op+ "*** End Patch" LF?
 *   op      := add | delete | update
 *   add     := "*** Add File: " path LF ("+" text LF)*
 *   delete  := "*** Delete File: " path LF
 *   update  := "*** Update File: " path LF ("*** Move to: " path LF)? chunk+
 *   chunk   := ("@@" | "@@ " context) LF (( " " | "-" | "+") text LF)+ ("*** End of File" LF)?
 *
 * A pure function of the text: no file is read. It is lenient where models are known to slip,
 * and strict where a guess could change the wrong lines:
 * - CRLF line ends, spaces around the markers, and a heredoc wrapper (`<<'EOF'` ... `EOF`, as a
 *   model writes the patch for a shell) are accepted;
 * - an empty line inside a chunk is an empty context line (editors strip the lone space);
 * - the first chunk of an update may leave out its `@@` line;
 * - anything else (an unknown header, a line without a prefix where a chunk must start, an update
 *   with no chunk, a patch with no operation) is an error naming the line, never skipped.
 */

/** One chunk of an update: lines to find (after `context`, when given) and what replaces them. */
export interface PatchChunk {
  /** The `@@ <context>` line: a line (a function or class header) the chunk comes after. */
  context?: string;
  /** Context and removed lines, in file order: what must be found. */
  oldLines: string[];
  /** Context and added lines, in file order: what it becomes. */
  newLines: string[];
  /** `*** End of File`: the old lines end the file. */
  endOfFile: boolean;
}

/** One file operation of a patch. */
export type PatchOperation =
  | { kind: 'add'; path: string; contents: string }
  | { kind: 'delete'; path: string }
  | { kind: 'update'; path: string; moveTo?: string; chunks: PatchChunk[] };

/** What {@link parsePatch} gives: the operations, or the first problem with its 1-based line. */
export type PatchParse = { ok: true; operations: PatchOperation[] } | { ok: false; line: number; message: string };

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const EOF_MARKER = '*** End of File';
const HEREDOC_OPENERS = new Set(['<<EOF', "<<'EOF'", '<<"EOF"']);

/** A header's path, or undefined when the line is not that header. Trailing spaces are not part of a path. */
function headerPath(line: string, marker: string): string | undefined {
  const trimmed = line.trim();
  return trimmed.startsWith(marker) ? trimmed.slice(marker.length).trim() : undefined;
}

/** The lines between the envelope markers and the line number of the first, or the envelope's problem. */
function envelope(text: string): { body: string[]; firstLine: number } | { ok: false; line: number; message: string } {
  let lines = text.trim().split(/\r?\n/);
  let offset = 1;
  // A patch written for a shell: apply_patch <<'EOF' ... EOF.
  if (lines.length >= 4 && HEREDOC_OPENERS.has(lines[0]!.trim()) && lines[lines.length - 1]!.trim().endsWith('EOF')) {
    lines = lines.slice(1, -1);
    offset = 2;
  }
  if (lines[0]?.trim() !== BEGIN)
    return { ok: false, line: offset, message: `the first line of the patch must be '${BEGIN}'` };
  if (lines.length < 2 || lines[lines.length - 1]!.trim() !== END)
    return { ok: false, line: offset + lines.length - 1, message: `the last line of the patch must be '${END}'` };
  return { body: lines.slice(1, -1), firstLine: offset + 1 };
}

/** Parse a patch. Pure; never throws. */
export function parsePatch(text: string): PatchParse {
  const framed = envelope(text);
  if ('ok' in framed) return framed;
  const { body, firstLine } = framed;
  const operations: PatchOperation[] = [];
  let i = 0;
  const fail = (at: number, message: string): PatchParse => ({ ok: false, line: firstLine + at, message });
  while (i < body.length) {
    const line = body[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const added = headerPath(line, ADD);
    const deleted = headerPath(line, DELETE);
    const updated = headerPath(line, UPDATE);
    if (added !== undefined) {
      if (added === '') return fail(i, 'Add File needs a path');
      const contents: string[] = [];
      i++;
      while (i < body.length && body[i]!.startsWith('+')) contents.push(`${body[i++]!.slice(1)}\n`);
      operations.push({ kind: 'add', path: added, contents: contents.join('') });
    } else if (deleted !== undefined) {
      if (deleted === '') return fail(i, 'Delete File needs a path');
      operations.push({ kind: 'delete', path: deleted });
      i++;
    } else if (updated !== undefined) {
      if (updated === '') return fail(i, 'Update File needs a path');
      const header = i;
      i++;
      const moveTo = i < body.length ? headerPath(body[i]!, MOVE) : undefined;
      if (moveTo !== undefined) {
        if (moveTo === '') return fail(i, 'Move to needs a path');
        i++;
      }
      const chunks: PatchChunk[] = [];
      while (i < body.length) {
        const current = body[i]!;
        if (current.trim() === '' && !startsChunk(body, i + 1)) {
          // A blank line between chunks, or before the next header.
          i++;
          continue;
        }
        if (current.startsWith('***')) break;
        const parsed = parseChunk(body, i, chunks.length === 0);
        if ('message' in parsed) return fail(parsed.at, parsed.message);
        chunks.push(parsed.chunk);
        i = parsed.next;
      }
      if (chunks.length === 0)
        return fail(header, `Update File ${updated} has no change: add a chunk starting with @@`);
      operations.push({ kind: 'update', path: updated, ...(moveTo !== undefined ? { moveTo } : {}), chunks });
    } else {
      return fail(
        i,
        `'${line.trim().slice(0, 80)}' is not a file operation: expected '${ADD}', '${DELETE}' or '${UPDATE}' followed by a path`,
      );
    }
  }
  if (operations.length === 0) return { ok: false, line: firstLine, message: 'the patch has no file operation' };
  return { ok: true, operations };
}

/** True when line `i` carries a chunk's content (so a blank line before it belongs to the chunk). */
function startsChunk(lines: string[], i: number): boolean {
  const line = lines[i];
  return line !== undefined && line !== '' && (line[0] === ' ' || line[0] === '+' || line[0] === '-');
}

/** One chunk from line `start`: `@@` (optional for the first chunk), then diff lines. */
function parseChunk(
  lines: string[],
  start: number,
  first: boolean,
): { chunk: PatchChunk; next: number } | { at: number; message: string } {
  let i = start;
  const head = lines[i]!;
  const chunk: PatchChunk = { oldLines: [], newLines: [], endOfFile: false };
  if (head.trim() === '@@') i++;
  else if (head.startsWith('@@ ')) {
    chunk.context = head.slice(3);
    i++;
  } else if (!first) {
    return { at: i, message: `expected a chunk to start with '@@', got '${head.slice(0, 80)}'` };
  }
  let taken = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === EOF_MARKER) {
      if (taken === 0) return { at: i, message: 'a chunk has no lines before *** End of File' };
      chunk.endOfFile = true;
      i++;
      break;
    }
    if (line === '') {
      // An empty line inside a chunk is an empty context line, unless the chunk ends here.
      if (
        !startsChunk(lines, i + 1) &&
        (i + 1 >= lines.length || lines[i + 1]!.startsWith('***') || lines[i + 1]!.startsWith('@@'))
      )
        break;
      chunk.oldLines.push('');
      chunk.newLines.push('');
    } else if (line[0] === ' ') {
      chunk.oldLines.push(line.slice(1));
      chunk.newLines.push(line.slice(1));
    } else if (line[0] === '-') chunk.oldLines.push(line.slice(1));
    else if (line[0] === '+') chunk.newLines.push(line.slice(1));
    else if (taken === 0) {
      return {
        at: i,
        message: `'${line.slice(0, 80)}' in a chunk: every line must start with ' ' (context), '-' (removed) or '+' (added)`,
      };
    } else break;
    taken++;
    i++;
  }
  if (taken === 0) return { at: start, message: 'a chunk has no lines' };
  return { chunk, next: i };
}
