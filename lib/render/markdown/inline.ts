import type { ChalkInstance } from 'chalk';
import type { Token } from 'marked';
import { displayWidth, wrapToWidth } from '../width.js';
import { definedOnly } from '../../defined-only.js';

/**
 * Inline Markdown (emphasis, code spans, links) as styled pieces, and word wrapping of those
 * pieces to a width. Each piece is styled on its own, so a wrapped row never carries an open
 * colour sequence into the next one.
 */

/** One screen row: the plain text (for width and copying) and the styled text. */
export interface StyledLine {
  readonly plain: string;
  readonly styled: string;
}

/** A run of text with one style. */
export interface Piece {
  readonly text: string;
  readonly style?: ((text: string) => string) | undefined;
}

type Style = ((text: string) => string) | undefined;

function compose(outer: Style, inner: Style): Style {
  if (!outer) return inner;
  if (!inner) return outer;
  return (t) => outer(inner(t));
}

/**
 * Inline tokens as pieces. With colour off, emphasis markers are dropped (the words stay),
 * code spans keep their backticks and links show their target, so nothing is lost.
 */
export function inlinePieces(tokens: readonly Token[] | undefined, chalk: ChalkInstance, style?: Style): Piece[] {
  const out: Piece[] = [];
  const plain = chalk.level === 0;
  for (const token of tokens ?? []) {
    const t = token as Token & { tokens?: Token[]; text?: string; href?: string };
    switch (t.type) {
      case 'strong':
        out.push(...inlinePieces(t.tokens, chalk, compose(style, chalk.bold)));
        break;
      case 'em':
        out.push(...inlinePieces(t.tokens, chalk, compose(style, chalk.italic)));
        break;
      case 'del':
        out.push(...inlinePieces(t.tokens, chalk, compose(style, chalk.strikethrough)));
        break;
      case 'codespan':
        out.push({ text: plain ? `\`${t.text ?? ''}\`` : (t.text ?? ''), style: compose(style, chalk.cyan) });
        break;
      case 'link':
      case 'image': {
        const label = inlinePieces(t.tokens, chalk, compose(style, chalk.underline));
        const labelText = label.map((p) => p.text).join('');
        out.push(...(label.length > 0 ? label : [{ text: t.text ?? '' }]));
        if (t.href && t.href !== labelText && `mailto:${labelText}` !== t.href)
          out.push({ text: ` (${t.href})`, style: chalk.gray });
        break;
      }
      case 'br':
        out.push({ text: '\n' });
        break;
      case 'text':
        if (t.tokens && t.tokens.length > 0) out.push(...inlinePieces(t.tokens, chalk, style));
        else out.push(definedOnly({ text: t.text ?? '', style }));
        break;
      default:
        // escape, html and anything newer: its text as written.
        out.push(definedOnly({ text: t.text ?? t.raw, style }));
    }
  }
  return out;
}

/**
 * Wrap pieces at spaces to `width` columns; the first row starts with `first`, the others with
 * `rest` (both plain, same width). A word wider than a row is cut.
 */
export function wrapPieces(
  pieces: readonly Piece[],
  width: number,
  first = '',
  rest = first,
  prefixStyle?: Style,
): StyledLine[] {
  const lines: StyledLine[] = [];
  const avail = Math.max(1, width - displayWidth(first));
  let plain: string[] = [];
  let styled: string[] = [];
  let used = 0;
  let space = false;
  const flush = (): void => {
    const prefix = lines.length === 0 ? first : rest;
    const pre = prefixStyle && prefix.trim() !== '' ? prefixStyle(prefix) : prefix;
    lines.push({ plain: prefix + plain.join(''), styled: pre + styled.join('') });
    plain = [];
    styled = [];
    used = 0;
    space = false;
  };
  const add = (text: string, style: Style): void => {
    plain.push(text);
    styled.push(style ? style(text) : text);
    used += displayWidth(text);
  };
  for (const piece of pieces) {
    for (const part of piece.text.split(/(\n|[ \t]+)/)) {
      if (part === '') continue;
      if (part === '\n') {
        flush();
        continue;
      }
      if (/^[ \t]+$/.test(part)) {
        if (used > 0) space = true;
        continue;
      }
      const w = displayWidth(part);
      if (used > 0 && used + (space ? 1 : 0) + w > avail) flush();
      if (space && used > 0) add(' ', undefined);
      space = false;
      if (w > avail - used) {
        if (used > 0) flush();
        wrapToWidth(part, avail).forEach((row, i) => {
          if (i > 0) flush();
          add(row, piece.style);
        });
      } else add(part, piece.style);
    }
  }
  if (used > 0 || lines.length === 0) flush();
  return lines;
}
