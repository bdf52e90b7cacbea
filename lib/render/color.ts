import { Chalk, type ChalkInstance } from 'chalk';
import type { DiffTone } from './fact-line.js';
import { plainLine, type FactLine } from './format.js';
import { STATUS_LOOK } from './status.js';

/** Colour level 0-3, as chalk counts it. */
export type ColorLevel = 0 | 1 | 2 | 3;

/**
 * Decide the colour level from the environment, following the usual conventions (and Node's
 * own `getColorDepth` order): `FORCE_COLOR` wins when set (`0`/`false` off, `1`-`3` that
 * level, anything else basic colour); else a non-empty `NO_COLOR` turns colour off; else
 * colour only on a TTY that is not `TERM=dumb`, deeper for 256-colour and truecolor terminals.
 */
export function colorLevel(env: Readonly<Record<string, string | undefined>>, isTTY: boolean): ColorLevel {
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '0' || force === 'false') return 0;
    if (force === '2' || force === '3') return Number(force) as ColorLevel;
    return 1;
  }
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  if (!isTTY || env.TERM === 'dumb') return 0;
  if (env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit') return 3;
  if (env.TERM?.includes('256')) return 2;
  return 1;
}

/** Colours of the tones; the glyph and word carry the meaning, colour only adds to it. */
export function toneColor(chalk: ChalkInstance, tone: string): (text: string) => string {
  switch (tone) {
    case 'ok':
      return chalk.green;
    case 'bad':
      return chalk.red;
    case 'warn':
      return chalk.yellow;
    case 'muted':
      return chalk.gray;
    case 'active':
      return chalk.cyan;
    default:
      return (t) => t;
  }
}

/** Colours of diff lines: added green, removed red, hunk headers cyan, notes dim. */
export function diffColor(chalk: ChalkInstance, tone: DiffTone): (text: string) => string {
  switch (tone) {
    case 'added':
      return chalk.green;
    case 'removed':
      return chalk.red;
    case 'hunk':
      return chalk.cyan;
    case 'muted':
      return chalk.dim;
  }
}

/** A line styler: the label coloured by its status's tone, the text left plain (copyable). */
export function createLineStyler(level: ColorLevel): { chalk: ChalkInstance; style: (line: FactLine) => string } {
  const chalk = new Chalk({ level });
  return {
    chalk,
    style(line) {
      if (level > 0 && line.tone !== undefined) return diffColor(chalk, line.tone)(plainLine(line));
      if (level === 0 || line.label === undefined) return plainLine(line);
      const color = line.status ? toneColor(chalk, STATUS_LOOK[line.status].tone) : chalk.bold;
      return line.text === '' ? color(line.label) : `${color(line.label)} ${line.text}`;
    },
  };
}
