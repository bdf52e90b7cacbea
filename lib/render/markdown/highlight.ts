import type { ChalkInstance } from 'chalk';

/**
 * A small offline highlighter for fenced code: keywords, strings, comments and numbers of a few
 * common languages, one line at a time. Enough colour to read code at a glance; an unknown
 * language is left plain rather than guessed.
 */

interface Grammar {
  readonly keywords: ReadonlySet<string>;
  /** Line-comment introducer. */
  readonly comment: string;
}

const words = (s: string): ReadonlySet<string> => new Set(s.split(' '));

const JS = words(
  'const let var function return if else for while do switch case break continue new class extends import export from default async await try catch finally throw typeof instanceof in of this null undefined true false interface type enum implements public private protected readonly static yield void',
);
const PY = words(
  'def return if elif else for while in not and or is import from as class try except finally raise with lambda pass break continue None True False yield async await global nonlocal assert del',
);
const SH = words(
  'if then else elif fi for in do done while until case esac function return export local echo cd exit set unset source',
);
const GO = words(
  'func package import return if else for range switch case break continue var const type struct interface map chan go defer select nil true false',
);
const RUST = words(
  'fn let mut pub use mod struct enum impl trait match if else for while loop return self Self crate super as in ref move async await true false where dyn',
);

const GRAMMARS: Record<string, Grammar> = {};
for (const name of ['js', 'javascript', 'jsx', 'ts', 'typescript', 'tsx', 'mjs', 'cjs', 'java', 'c', 'cpp', 'cs'])
  GRAMMARS[name] = { keywords: JS, comment: '//' };
for (const name of ['py', 'python']) GRAMMARS[name] = { keywords: PY, comment: '#' };
for (const name of ['sh', 'bash', 'shell', 'zsh', 'console']) GRAMMARS[name] = { keywords: SH, comment: '#' };
GRAMMARS.go = { keywords: GO, comment: '//' };
for (const name of ['rs', 'rust']) GRAMMARS[name] = { keywords: RUST, comment: '//' };
for (const name of ['json', 'jsonc']) GRAMMARS[name] = { keywords: words('true false null'), comment: '//' };

const TOKEN = /("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|(\b\d[\d_.xXa-fA-F]*\b)|([A-Za-z_$][\w$]*)/g;

/** Colour one line of code in `lang`; plain when the language is unknown or colour is off. */
export function highlightLine(line: string, lang: string, chalk: ChalkInstance): string {
  const grammar = GRAMMARS[lang.toLowerCase()];
  if (!grammar || chalk.level === 0) return line;
  let code = line;
  let comment = '';
  const at = commentStart(line, grammar.comment);
  if (at >= 0) {
    code = line.slice(0, at);
    comment = chalk.gray(line.slice(at));
  }
  const coloured = code.replace(
    TOKEN,
    (match, str: string | undefined, num: string | undefined, word: string | undefined) => {
      if (str !== undefined) return chalk.green(match);
      if (num !== undefined) return chalk.yellow(match);
      if (word !== undefined && grammar.keywords.has(word)) return chalk.magenta(match);
      return match;
    },
  );
  return coloured + comment;
}

/** Where a line comment starts, outside string literals; -1 when none. */
function commentStart(line: string, introducer: string): number {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if (line.startsWith(introducer, i)) return i;
  }
  return -1;
}
