/**
 * Slash commands of the interactive mode. Each returns plain lines to print (copyable text,
 * a label on every figure), and says what else the terminal must do (exit, start a new
 * session, print lines that come later).
 */
import { APPROVAL_MODES, type ApprovalModeName } from '../policy/index.js';
import { closestName } from '../did-you-mean.js';
import type { EventStore } from '../store/index.js';
import { count, statusLines } from './observe.js';
import type { ChatSession } from './session.js';
import type { PromptSettings } from '../agent/prompt-settings.js';
import { oneLine } from '../render/display-text.js';
import type { CheckpointSettings } from '../checkpoints/settings.js';
import { commandLines } from '../extensions/commands.js';
import { definedOnly } from '../defined-only.js';

/** The system prompt and instruction files every turn sends (paths come from the file system: shown neutralised). */
export function promptLines(prompting: PromptSettings): string[] {
  const { system, recipe } = prompting;
  const files = system.instructionFiles.map(
    (f) => `${oneLine(f.path)} (${f.bytes} bytes${f.truncated ? ', cut' : ''}, ${f.sha256.slice(0, 19)})`,
  );
  const origin = recipe.base !== undefined ? '--system-prompt' : "minicode's own";
  return [
    `System:  ${system.digest.slice(0, 19)} - ${origin}${recipe.append !== undefined ? ' + --append-system-prompt' : ''}${system.truncated ? ' (cut at 8,000 chars)' : ''}`,
    `Instructions: ${recipe.instructions === false ? 'off (--no-instructions)' : files.length === 0 ? 'none found' : files.join(', ')}`,
  ];
}

/** `/undo` or `/checkpoints`, loaded on first use; failures become lines, never throws. */
async function checkpointCommand(name: string, settings: CheckpointSettings, cwd: string): Promise<string[]> {
  const [{ listCheckpoints, undoWorkspace }, { checkpointLines, undoLines }] = await Promise.all([
    import('../checkpoints/undo.js'),
    import('../checkpoints/format.js'),
  ]);
  try {
    if (name === '/checkpoints') return checkpointLines(await listCheckpoints({ settings, cwd }));
    return undoLines(await undoWorkspace({ settings, cwd }));
  } catch (error) {
    const e = error as { message?: string; action?: string };
    return [`${name}: ${e.message ?? String(error)}`, ...(e.action ? [`  ${e.action}`] : [])];
  }
}

/** `/mcp`, `/mcp NAME` (its tools too), `/mcp reconnect NAME`; the status lines are lib/mcp/status-lines.ts's. */
function mcpCommand(session: ChatSession, arg: string): CommandResult {
  const manager = session.mcp;
  if (!manager)
    return { lines: ['MCP: no servers configured (minicode mcp add NAME COMMAND, or mcpServers in the config)'] };
  const [first = '', second = ''] = arg.split(/\s+/);
  const lines = async (): Promise<string[]> => {
    const { serverStatusLines } = await import('../mcp/status-lines.js');
    if (first === 'reconnect') {
      if (second === '') return ['MCP: /mcp reconnect NAME'];
      const status = await manager.reconnect(second);
      if (!status) return [`MCP: no started server named ${oneLine(second)}`];
      return serverStatusLines([status], { tools: false });
    }
    const rows = manager.statuses();
    if (first === '') return ['MCP servers (/mcp NAME lists its tools):', ...serverStatusLines(rows, { tools: false })];
    const row = rows.find((r) => r.name === first);
    return row
      ? serverStatusLines([row], { tools: true })
      : [`MCP: no server named ${oneLine(first)}; known: ${rows.map((r) => oneLine(r.name)).join(', ')}`];
  };
  return { lines: [], later: lines() };
}

/** What each approval mode means, said when `/approval` switches to it. */
const APPROVAL_MEANING: Record<ApprovalModeName, string> = {
  ask: 'reads run freely, every edit and command asks',
  auto: 'edits and commands of the allowlist run without asking',
  'read-only': 'edits and commands are refused',
};

/** `/compact`: fold now and say what changed; failures become a line, never a throw. */
async function compactLines(session: ChatSession): Promise<string[]> {
  try {
    const fold = await session.compact();
    if (!fold.changed)
      return [
        `Compact: nothing to fold; ~${count(fold.beforeTokens)} tokens, the last exchange is kept verbatim and shorter messages are not cut.`,
      ];
    return [
      `Compact: ~${count(fold.beforeTokens)} -> ~${count(fold.afterTokens)} tokens`,
      `shortened ${fold.foldedMessages} message(s) to their head${fold.removedMessages > 0 ? ` and removed ${fold.removedMessages}` : ''}; the last exchange is kept verbatim.`,
    ];
  } catch (error) {
    return [`/compact: ${error instanceof Error ? error.message : String(error)}`];
  }
}

/** What a command asks the terminal to do besides printing. */
export interface CommandResult {
  lines: string[];
  exit?: boolean;
  /** More lines that come later (commands that run git: /undo, /checkpoints; /compact). */
  later?: Promise<string[]>;
  /** `/clear`: end this session and start a new one. */
  clear?: boolean;
}

/** The commands, for `/help` and the unknown-command hint. */
export const COMMANDS: readonly (readonly [string, string])[] = [
  ['/status', 'context estimate, provider usage, cost and budget'],
  ['/compact', 'fold the older messages now so the next requests carry less'],
  ['/clear', 'end this session and start a new one (the conversation starts empty)'],
  ['/approval [mode]', 'show or switch the approval mode: ask, auto or read-only'],
  ['/model [name]', 'show or switch the model for the next turns'],
  ['/budget [usd]', 'show or set the session budget (off to remove)'],
  ['/sessions', 'stored sessions, most recent first'],
  ['/undo', 'take back the files the last turn changed (run it again to take the undo back)'],
  ['/checkpoints', 'checkpoints of this workspace with the files each turn changed'],
  ['/mcp [name|reconnect name]', 'MCP servers, their state and tools; reconnect one'],
  ['/help', 'this list and the keys'],
  ['/exit', 'end the session and quit'],
];

const KEYS = [
  'Keys: Enter sends; \\ then Enter, Alt+Enter or Ctrl+J adds a line; a paste stays one message;',
  'Up/Down browse history; Ctrl+R searches it (Enter takes the match, Esc leaves);',
  '@path then Tab completes a workspace file, attached to the message when sent;',
  '!command runs in the workspace without asking (you typed it); its output goes with the next message;',
  '/ then letters lists the matching commands, Tab completes one;',
  'Esc stops a turn; Ctrl+O shows reasoning;',
  'Ctrl+C stops a turn, twice quits; at the prompt Ctrl+C clears the draft and a second one quits; Ctrl+D quits on an empty prompt.',
];

/** True when the line is a slash command (not a path such as `/etc/hosts is wrong`); a bare `/` lists them. */
export function isCommand(line: string): boolean {
  return /^\/([a-z]+(\s|$)|$)/.test(line.trim());
}

/** The custom commands (lib/extensions/commands.ts) under a heading; none when there are none. Names come from files: shown neutralised. */
function customLines(session: ChatSession): string[] {
  const lines = commandLines(session.prompting.commands);
  return lines.length === 0 ? [] : ['Custom commands:', ...lines.map((l) => oneLine(l))];
}

/** Run one slash command. */
export function runCommand(line: string, ctx: { session: ChatSession; store: EventStore; cwd: string }): CommandResult {
  const [name = '', ...rest] = line.trim().split(/\s+/);
  const arg = rest.join(' ');
  const { session } = ctx;
  switch (name) {
    case '/':
      return {
        lines: ['Commands (/help adds the keys):', ...COMMANDS.map(([c, d]) => `${c} - ${d}`), ...customLines(session)],
      };
    case '/help':
      return { lines: [...COMMANDS.map(([c, d]) => `${c} - ${d}`), ...customLines(session), ...KEYS] };
    case '/exit':
    case '/quit':
      return { lines: [], exit: true };
    case '/status':
      return {
        lines: [
          `Session: ${session.sessionId ?? 'new (stored at the first prompt)'}`,
          ...statusLines(session.observed()),
          ...promptLines(session.prompting),
        ],
      };
    case '/compact':
      return { lines: [], later: compactLines(session) };
    case '/clear':
      return { lines: [], clear: true };
    case '/approval': {
      const policy = session.policy;
      if (arg === '')
        return { lines: [`Approval: ${policy.mode} (switch with /approval ${APPROVAL_MODES.join('|')})`] };
      if (!(APPROVAL_MODES as readonly string[]).includes(arg))
        return { lines: [`Approval: "${oneLine(arg)}" is not a mode; use one of ${APPROVAL_MODES.join(', ')}`] };
      policy.mode = arg as ApprovalModeName;
      return { lines: [`Approval: ${arg} from the next tool call (${APPROVAL_MEANING[arg as ApprovalModeName]})`] };
    }
    case '/model':
      if (arg === '') return { lines: [`Model: ${session.provider.model} (${session.provider.format})`] };
      session.provider.model = arg;
      return { lines: [`Model: ${arg} from the next turn`] };
    case '/budget': {
      if (arg === '')
        return {
          lines: [
            `Budget: ${session.budget ? `limit $${session.budget.limitUsd.toFixed(4)}${session.budget.strict ? ', strict' : ''}` : 'none'}`,
          ],
        };
      if (arg === 'off' || arg === 'none') {
        session.budget = undefined;
        return { lines: ['Budget: none'] };
      }
      const usd = Number(arg.replace(/^\$/, ''));
      if (!Number.isFinite(usd) || usd < 0)
        return { lines: [`Budget: "${arg}" is not a USD amount; try /budget 0.50`] };
      session.budget = definedOnly({ limitUsd: usd, strict: session.budget?.strict ? true : undefined });
      return { lines: [`Budget: limit $${usd.toFixed(4)} for this session`] };
    }
    case '/sessions': {
      const entries = ctx.store.listSessions().slice(0, 10);
      if (entries.length === 0) return { lines: ['Sessions: none stored'] };
      return {
        lines: [
          'Sessions (newest first; resume with minicode --resume ID):',
          ...entries.map((e) =>
            `${e.sessionId === session.sessionId ? '* ' : '  '}${e.sessionId} ${e.outcome} ${e.origin ?? '-'} ${e.startedAt ?? ''}${e.title ? ` ${oneLine(e.title)}` : ''}`.trimEnd(),
          ),
        ],
      };
    }
    case '/mcp':
      return mcpCommand(session, arg);
    case '/undo':
    case '/checkpoints': {
      const settings = session.checkpoints;
      if (!settings) return { lines: ['Checkpoints are off (--no-checkpoint or config checkpoints: false)'] };
      return { lines: [], later: checkpointCommand(name, settings, ctx.cwd) };
    }
    default: {
      const near = closestName(name.slice(1), [
        ...COMMANDS.map(([c]) => c.split(' ')[0]!.slice(1)),
        ...session.prompting.commands.commands.map((c) => c.name),
      ]);
      return {
        lines: [`Unknown command ${oneLine(name)}; ${near ? `did you mean /${near}? ` : ''}type /help for the list.`],
      };
    }
  }
}
