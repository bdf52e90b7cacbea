import type { ChalkInstance } from 'chalk';
import type { Token, Tokens } from 'marked';
import { displayWidth, fitToWidth, wrapToWidth } from '../width.js';
import { highlightLine } from './highlight.js';
import { inlinePieces, wrapPieces, type StyledLine } from './inline.js';

/**
 * Markdown for the terminal: the model's answer tokenized by `marked` and laid out as screen
 * rows of at most `width` columns. Streaming-safe because it is a pure function of the text so
 * far: an unclosed fence renders as code up to the end, a table without its delimiter row yet
 * renders as the paragraph it still is, and both settle when the rest arrives.
 *
 * `marked` is imported lazily ({@link loadMarkdown}) so that commands not writing to a TTY never
 * load it; until it is loaded, {@link renderMarkdown} returns undefined and callers show plain text.
 */

export type { StyledLine } from './inline.js';

type Lexer = (text: string) => Token[];
let lexer: Lexer | undefined;
let loading: Promise<void> | undefined;

/** Load the Markdown tokenizer once; resolves when {@link renderMarkdown} can render. */
export function loadMarkdown(): Promise<void> {
  loading ??= import('marked').then((m) => {
    lexer = (text) => m.lexer(text, { gfm: true });
  });
  return loading;
}

/** True once {@link loadMarkdown} has finished. */
export function markdownReady(): boolean {
  return lexer !== undefined;
}

/** Render `text` as rows of at most `width` columns; undefined until the tokenizer is loaded. */
export function renderMarkdown(text: string, width: number, chalk: ChalkInstance): StyledLine[] | undefined {
  if (!lexer) return undefined;
  const lines: StyledLine[] = [];
  blocks(lexer(text), Math.max(8, width), chalk, lines, '');
  while (lines.length > 0 && lines.at(-1)!.plain.trim() === '') lines.pop();
  return lines;
}

const blank: StyledLine = { plain: '', styled: '' };

function blocks(
  tokens: readonly Token[],
  width: number,
  chalk: ChalkInstance,
  out: StyledLine[],
  indent: string,
): void {
  let first = true;
  for (const token of tokens) {
    if (token.type === 'space' || token.type === 'def') continue;
    if (!first && indent === '') out.push(blank);
    first = false;
    block(token, width, chalk, out);
  }
}

function block(token: Token, width: number, chalk: ChalkInstance, out: StyledLine[]): void {
  const t = token as Token & { tokens?: Token[]; text?: string };
  switch (token.type) {
    case 'heading': {
      const h = token as Tokens.Heading;
      const look = h.depth <= 2 ? (s: string) => chalk.bold.cyan(s) : (s: string) => chalk.bold(s);
      out.push(...wrapPieces(inlinePieces(h.tokens, chalk, look), width));
      return;
    }
    case 'paragraph':
    case 'text':
      out.push(...wrapPieces(t.tokens ? inlinePieces(t.tokens, chalk) : [{ text: t.text ?? '' }], width));
      return;
    case 'list':
      list(token as Tokens.List, width, chalk, out);
      return;
    case 'blockquote': {
      const inner: StyledLine[] = [];
      blocks(t.tokens ?? [], width - 2, chalk, inner, '');
      for (const l of inner) out.push({ plain: `│ ${l.plain}`, styled: `${chalk.gray('│')} ${l.styled}` });
      return;
    }
    case 'code':
      code(token as Tokens.Code, width, chalk, out);
      return;
    case 'table':
      table(token as Tokens.Table, width, chalk, out);
      return;
    case 'hr': {
      const rule = '─'.repeat(Math.min(width, 40));
      out.push({ plain: rule, styled: chalk.gray(rule) });
      return;
    }
    default:
      // html and anything newer: as written, wrapped.
      for (const row of wrapToWidth((t.raw ?? '').replace(/\n+$/, ''), width)) out.push({ plain: row, styled: row });
  }
}

function list(token: Tokens.List, width: number, chalk: ChalkInstance, out: StyledLine[]): void {
  const start = typeof token.start === 'number' ? token.start : 1;
  token.items.forEach((item, i) => {
    let marker = token.ordered ? `${start + i}. ` : '• ';
    if (item.task) marker += item.checked ? '[x] ' : '[ ] ';
    const hang = ' '.repeat(displayWidth(marker));
    const inner: StyledLine[] = [];
    let firstBlock = true;
    for (const child of item.tokens) {
      if (child.type === 'space' || child.type === 'checkbox') continue;
      if (!firstBlock && item.loose) inner.push(blank);
      firstBlock = false;
      block(child, width - hang.length, chalk, inner);
    }
    if (inner.length === 0) inner.push(blank);
    inner.forEach((l, row) => {
      const prefix = row === 0 ? marker : hang;
      const styledPrefix = row === 0 ? chalk.cyan(marker) : hang;
      out.push({ plain: prefix + l.plain, styled: styledPrefix + l.styled });
    });
  });
}

function code(token: Tokens.Code, width: number, chalk: ChalkInstance, out: StyledLine[]): void {
  const lang = (token.lang ?? '').split(/\s/)[0] ?? '';
  const plainMode = chalk.level === 0;
  // Without colour the fence lines stay, so the block's extent and language are still visible.
  if (plainMode) out.push({ plain: `\`\`\`${lang}`, styled: `\`\`\`${lang}` });
  else if (lang !== '') out.push({ plain: `  ${lang}`, styled: chalk.gray(`  ${lang}`) });
  const text = token.text.replace(/\t/g, '  ');
  for (const line of text === '' ? [] : text.split('\n')) {
    for (const row of wrapToWidth(line, width - 2))
      out.push({ plain: `  ${row}`, styled: `  ${highlightLine(row, lang, chalk)}` });
  }
  if (plainMode) out.push({ plain: '```', styled: '```' });
}

function table(token: Tokens.Table, width: number, chalk: ChalkInstance, out: StyledLine[]): void {
  const cell = (c: Tokens.TableCell, bold: boolean): StyledLine => {
    const row = wrapPieces(inlinePieces(c.tokens, chalk, bold ? chalk.bold : undefined), Number.MAX_SAFE_INTEGER);
    return { plain: row.map((r) => r.plain).join(' '), styled: row.map((r) => r.styled).join(' ') };
  };
  const header = token.header.map((c) => cell(c, true));
  const rows = token.rows.map((r) => r.map((c) => cell(c, false)));
  const widths = header.map((h, i) =>
    Math.max(displayWidth(h.plain), ...rows.map((r) => displayWidth(r[i]?.plain ?? ''))),
  );
  const total = widths.reduce((a, b) => a + b, 0) + 3 * (widths.length - 1);
  if (total > width) {
    // Too wide for a grid: one "header: value" row per cell, records separated by a blank line.
    rows.forEach((r, i) => {
      if (i > 0) out.push(blank);
      header.forEach((h, j) => {
        const v = r[j] ?? blank;
        const plain = fitToWidth(`${h.plain}: ${v.plain}`, width);
        out.push({ plain, styled: plain === `${h.plain}: ${v.plain}` ? `${h.styled}: ${v.styled}` : plain });
      });
    });
    return;
  }
  const pad = (c: StyledLine, i: number): { plain: string; styled: string } => {
    const gap = ' '.repeat(widths[i]! - displayWidth(c.plain));
    const right = token.align[i] === 'right';
    return right ? { plain: gap + c.plain, styled: gap + c.styled } : { plain: c.plain + gap, styled: c.styled + gap };
  };
  const sep = ' │ ';
  const joinRow = (cells: StyledLine[]): StyledLine => {
    const padded = widths.map((_, i) => pad(cells[i] ?? blank, i));
    return {
      plain: padded
        .map((p) => p.plain)
        .join(sep)
        .trimEnd(),
      styled: padded.map((p) => p.styled).join(chalk.gray(sep)),
    };
  };
  out.push(joinRow(header));
  const rule = widths.map((w) => '─'.repeat(w)).join('─┼─');
  out.push({ plain: rule, styled: chalk.gray(rule) });
  for (const r of rows) out.push(joinRow(r));
}
