import { spawnSync } from 'node:child_process';
import type { Fidelity, OutputEvent } from '../events/index.js';
import { scrubEnvironment } from '../policy/credentials.js';
import { credentialSecretsFromEnv } from '../scrub/credential-rule.js';
import { redactText } from '../scrub/secret-redactor.js';

/** Caps of the handoff prompt (documented in docs/native-agents.md). */
export const HANDOFF_LIMITS = {
  /** One transcript entry (message text, tool input or outcome), in characters. */
  entryChars: 2000,
  /** All transcript entries together; the oldest entries are dropped first to fit. */
  transcriptChars: 24_000,
  /** `git status --porcelain` output. */
  statusChars: 4000,
  /** `git diff HEAD` output; cut at the end, with a marker. */
  diffChars: 16_000,
} as const;

/** One visible transcript entry, labelled with the agent and fidelity it came with. */
export interface TranscriptEntry {
  agent: string;
  fidelity: Fidelity;
  text: string;
}

/**
 * Collects the visible transcript from the session's envelopes (after scrubbing, so what is
 * handed to the next agent is what the store holds). Tool calls become one entry when they end.
 */
export interface TranscriptCollector {
  /** Feed every envelope of the session (the pipeline's `onEvent`). */
  observe(event: OutputEvent): void;
  /** Agent the following events belong to. */
  setAgent(agent: string): void;
  entries(): readonly TranscriptEntry[];
}

/** Create a {@link TranscriptCollector} whose first entries belong to `firstAgent`. */
export function createTranscriptCollector(firstAgent: string): TranscriptCollector {
  let agent = firstAgent;
  const entries: TranscriptEntry[] = [];
  const openTools = new Map<string, { name: string; input: string; fidelity: Fidelity }>();
  const cap = (text: string): string =>
    text.length > HANDOFF_LIMITS.entryChars ? `${text.slice(0, HANDOFF_LIMITS.entryChars)}… [cut]` : text;
  return {
    setAgent(next) {
      agent = next;
    },
    entries: () => entries,
    observe(event) {
      const fidelity = event.fidelity ?? 'native';
      switch (event.type) {
        case 'user.message.received':
          entries.push({ agent: 'user', fidelity, text: `user: ${cap(event.payload.text)}` });
          return;
        case 'assistant.message.completed':
          if (event.payload.text.trim() !== '')
            entries.push({ agent, fidelity, text: `assistant: ${cap(event.payload.text)}` });
          return;
        case 'tool.started': {
          const input =
            event.payload.input === undefined ? (event.payload.title ?? '') : JSON.stringify(event.payload.input);
          openTools.set(event.payload.toolCallId, { name: event.payload.name, input, fidelity });
          return;
        }
        case 'tool.completed':
        case 'tool.failed':
        case 'tool.denied':
        case 'tool.cancelled': {
          const started = openTools.get(event.payload.toolCallId);
          openTools.delete(event.payload.toolCallId);
          const name = started?.name ?? event.payload.name ?? 'tool';
          const outcome =
            event.type === 'tool.completed'
              ? `completed: ${event.payload.output ?? event.payload.summary}`
              : event.type === 'tool.failed'
                ? `failed: ${event.payload.message}`
                : `${event.type === 'tool.denied' ? 'denied' : 'cancelled'}: ${event.payload.reason}`;
          // The entry carries the weaker label of the start and the outcome: a label never improves.
          const label = weaker(started?.fidelity ?? fidelity, fidelity);
          entries.push({
            agent,
            fidelity: label,
            text: `tool ${name}: input ${cap(started?.input ?? '')} -> ${cap(outcome)}`,
          });
          return;
        }
        default:
          return;
      }
    },
  };
}

const RANK: Record<Fidelity, number> = { native: 2, inferred: 1, synthetic: 0 };

function weaker(a: Fidelity, b: Fidelity): Fidelity {
  return RANK[a] <= RANK[b] ? a : b;
}

/** The workspace's state as the handoff prompt shows it. */
export interface WorkspaceState {
  git: boolean;
  status: string;
  diff: string;
  diffTruncated: boolean;
}

/**
 * `git status` and a bounded `git diff HEAD` of `cwd`; `git: false` outside a repository. Both
 * pass the secret redactor (with `env`'s credential values) before they go into a prompt.
 */
export function workspaceState(cwd: string, env: NodeJS.ProcessEnv = process.env): WorkspaceState {
  const gitEnv = scrubEnvironment(env, { keep: [] });
  const git = (args: string[]): string | undefined => runGit(cwd, gitEnv, args);
  const inside = git(['rev-parse', '--is-inside-work-tree']);
  if (inside?.trim() !== 'true') return { git: false, status: '', diff: '', diffTruncated: false };
  const secrets = credentialSecretsFromEnv(env);
  const status = redactText(git(['status', '--porcelain=v1', '--untracked-files=all']) ?? '', { secrets });
  // A repository without a commit has no HEAD: the diff is the index against the empty tree.
  const diff = redactText(git(['diff', 'HEAD']) ?? git(['diff']) ?? '', { secrets });
  const diffTruncated = diff.length > HANDOFF_LIMITS.diffChars;
  return {
    git: true,
    status:
      status.length > HANDOFF_LIMITS.statusChars
        ? `${status.slice(0, HANDOFF_LIMITS.statusChars)}\n… [status cut]`
        : status,
    diff: diffTruncated
      ? `${diff.slice(0, HANDOFF_LIMITS.diffChars)}\n… [diff cut at ${HANDOFF_LIMITS.diffChars} characters]`
      : diff,
    diffTruncated,
  };
}

function runGit(cwd: string, env: NodeJS.ProcessEnv, args: string[]): string | undefined {
  const result = spawnSync('git', args, {
    cwd,
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return result.status === 0 ? result.stdout : undefined;
}

/** Inputs of {@link buildHandoffPrompt}. */
export interface HandoffInput {
  task: string;
  from: string;
  cause: string;
  entries: readonly TranscriptEntry[];
  workspace: WorkspaceState;
}

/** The prompt and what it carries (the `carried` of `agent.handoff`). */
export interface HandoffPrompt {
  text: string;
  transcriptEntries: number;
  droppedEntries: number;
}

/**
 * The next agent's prompt: the original task, the transcript (oldest entries dropped first
 * past the cap, the count of dropped entries said), and the workspace state.
 */
export function buildHandoffPrompt(input: HandoffInput): HandoffPrompt {
  const lines = input.entries.map((e) => `[${e.agent} · ${e.fidelity}] ${e.text}`);
  let total = lines.reduce((sum, line) => sum + line.length + 1, 0);
  let dropped = 0;
  while (dropped < lines.length && total > HANDOFF_LIMITS.transcriptChars)
    total -= (lines[dropped++] as string).length + 1;
  const kept = lines.slice(dropped);
  const parts = [
    `You are taking over a coding task in this workspace from another agent (${input.from}), which stopped because its usage quota ran out (${input.cause}).`,
    '',
    '## Original task',
    input.task,
    '',
    '## Transcript so far',
    "Each entry is labelled [who · fidelity]: native = the agent's own structured output, inferred = read from its text, synthetic = written by the minicode supervisor.",
    ...(dropped > 0 ? [`(${dropped} older entries dropped to fit)`] : []),
    ...(kept.length > 0 ? kept : ['(none)']),
    '',
    '## Workspace state',
    ...(input.workspace.git
      ? [
          'git status --porcelain:',
          input.workspace.status.trim() || '(clean)',
          '',
          'git diff HEAD:',
          input.workspace.diff.trim() || '(no changes to tracked files)',
        ]
      : ['(not a git repository)']),
    '',
    'Continue the task from where it stopped; do not redo work the workspace already shows.',
  ];
  return { text: parts.join('\n'), transcriptEntries: kept.length, droppedEntries: dropped };
}
