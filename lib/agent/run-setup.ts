/**
 * What every agent-running command sets up before the first request: flags checked, config
 * loaded, provider resolved (a replay cassette served over loopback), the store opened. Each
 * failure is a MinicodeError with one actionable message.
 */
import { resolveRunSandbox } from '../sandbox/resolve.js';
import { SANDBOX_MODES, type SandboxMode, type SandboxSettings } from '../sandbox/settings.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveProvider } from './provider-select.js';
import { providerSettings, type ProviderEndpoint, type ProviderSettings } from './provider-settings.js';
import { DEFAULT_RUN_LIMITS, runLimits, type RunLimits } from './run-limits.js';
import { toolEnvironment, type ToolEnvironment } from './tool-environment.js';
import { promptSettings, systemPromptFor, type PromptRecipe, type PromptSettings } from './prompt-settings.js';
import { userInstructionsDir } from '../instructions/load.js';
import { readTextFile } from '../text-file.js';
import {
  CACHE_TTLS,
  REASONING_LEVELS,
  type CacheTtl,
  type ReasoningLevel,
  type RequestTuning,
} from './requests/types.js';
import { loadConfig, type LoadedConfig } from '../config-files.js';
import { MinicodeError } from '../errors.js';
import type { ReplayServerOptions } from '../replay/server.js';
import { resolveStoreDir } from '../store/location.js';
import type { EventStore } from '../store/store.js';
import type { Budget } from '../control/budget.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../control/retry.js';
import { MAX_TIMER_MS } from '../control/timers.js';
import { deadlineMs, nonNegativeInt, positiveInt } from '../flag-values.js';
import { checkpointSettingsOf } from '../checkpoints/settings.js';
import { DEFAULT_AUTO_TOOLS, type ApprovalModeName, type ApprovalPolicy } from '../policy/index.js';
import { MCP_PREFIX } from '../policy/mcp-names.js';
import type { McpManager } from '../mcp/index.js';
import type { ToolShapeSetting } from '../tools/shape-setting.js';
import { folderExtensions, folderRecipeOf, type FolderExtensions, type FolderRecipe } from './folder-setup.js';
import { definedOnly } from '../defined-only.js';

/** Flags of `minicode exec`, shared by every command that runs the agent (acp, batch, chat). */
export interface ExecFlags {
  json?: boolean | undefined;
  provider?: string | undefined;
  model?: string | undefined;
  baseUrl?: string | undefined;
  budget?: string | undefined;
  budgetStrict?: boolean | undefined;
  maxSteps?: string | undefined;
  /** `--max-child-depth N` (0 allowed). */
  maxChildDepth?: string | undefined;
  /** `--max-children N`. */
  maxChildren?: string | undefined;
  timeout?: string | undefined;
  verify?: string | boolean | undefined;
  allowLocalConfig?: boolean | undefined;
  store?: string | undefined;
  cassette?: string | undefined;
  record?: string | undefined;
  approval?: string | undefined;
  cwd?: string | undefined;
  verbose?: boolean | undefined;
  /** False with `--no-checkpoint`. */
  checkpoint?: boolean | undefined;
  reasoning?: string | undefined;
  cacheTtl?: string | undefined;
  cacheKey?: string | undefined;
  /** `--sandbox read-only|workspace-write|off`. */
  sandbox?: string | undefined;
  /** `--allow-network`: open the network inside the sandbox. */
  allowNetwork?: boolean | undefined;
  /** `--system-prompt FILE`: replaces minicode's system prompt. */
  systemPrompt?: string | undefined;
  /** `--append-system-prompt TEXT`: added after it. */
  appendSystemPrompt?: string | undefined;
  /** False with `--no-instructions`. */
  instructions?: boolean | undefined;
  /** `--output-schema FILE` (exec, batch). */
  outputSchema?: string | undefined;
  /** `--tool-shapes native|minicode`. */
  toolShapes?: string | undefined;
  /** `--prompt-file FILE` (exec). */
  promptFile?: string | undefined;
  /** `-i/--image FILE`, repeatable (exec). */
  image?: string[] | undefined;
  /** `--json-children events|summary` (exec --json): how child sessions' events are printed. */
  jsonChildren?: string | undefined;
}

/**
 * Everything a run needs that comes from flags, environment and config, as the groups the
 * loop takes (filled here once, passed whole): the provider (with `--record`'s HTTP client and the
 * retry policy of `MINICODE_RETRY_BACKOFF_MS`), the limits (flags, then `MINICODE_TIMEOUT_MS`
 * and `MINICODE_CONTEXT_WINDOW`, then config), and the tools' environment in `--cwd` (the
 * approval mode with the config's allowlists, checkpoints unless `--no-checkpoint` or config
 * `checkpoints: false`, the config's MCP servers once {@link startRunMcp} started them).
 */
export interface RunSetup {
  loaded: LoadedConfig;
  provider: ProviderSettings;
  limits: RunLimits;
  environment: ToolEnvironment;
  prompting: PromptSettings;
  /** How the hooks, commands, skills and agents of another folder are found (a batch line's `cwd`, an ACP session's). */
  folder: FolderRecipe;
  approval: ApprovalModeName;
  storeDir: string;
  /** The config's MCP servers, once {@link startRunMcp} started them (also the environment's `toolSource`). */
  mcp: McpManager | undefined;
  /** Release what setup started (the replay server). */
  close(): Promise<void>;
}

/**
 * The retry policy under `MINICODE_RETRY_BACKOFF_MS` (the unit of the backoff table, default
 * 1000: waits drawn at random up to 1, 2, 4 units). Tests and impatient CI set it small; a
 * provider's Retry-After is still honoured as given (capped at 30 s). Undefined when unset.
 */
export function retryPolicyFromEnv(env: NodeJS.ProcessEnv): RetryPolicy | undefined {
  const raw = env.MINICODE_RETRY_BACKOFF_MS;
  if (raw === undefined || raw === '') return undefined;
  const unit = Number(raw);
  // The longest wait (4 units) must fit a timer: a longer one would fire at once.
  if (!Number.isFinite(unit) || unit < 0 || unit * 4 > MAX_TIMER_MS) {
    throw new MinicodeError(
      'MINICODE_E_USAGE',
      `MINICODE_RETRY_BACKOFF_MS must be a non-negative number of ms up to ${Math.floor(MAX_TIMER_MS / 4)}, got "${raw}"`,
      {
        action: 'set MINICODE_RETRY_BACKOFF_MS=1000 (the default) or unset it',
      },
    );
  }
  const scale = unit / 1000;
  return { ...DEFAULT_RETRY_POLICY, backoffMs: DEFAULT_RETRY_POLICY.backoffMs.map((ms) => Math.round(ms * scale)) };
}

/** Check flags, load config and resolve the provider (`replayOptions` go to a replay server: `batch` asks for `by-turn`). */
export async function prepareRun(
  flags: ExecFlags,
  env: NodeJS.ProcessEnv = process.env,
  replayOptions: ReplayServerOptions = {},
): Promise<RunSetup> {
  const cwd = directoryFlag(flags.cwd ?? process.cwd(), '--cwd', { mustExist: true });
  if (flags.record !== undefined) refuseRecordedCassette(directoryFlag(flags.record, '--record'), flags.record);
  const flagMaxSteps = positiveInt(flags.maxSteps, '--max-steps');
  const flagMaxChildDepth = nonNegativeInt(flags.maxChildDepth, '--max-child-depth');
  const flagMaxChildren = positiveInt(flags.maxChildren, '--max-children');
  const flagSandbox = sandboxModeFlag(flags.sandbox);
  const flagTimeoutMs = deadlineMs(
    flags.timeout ?? (env.MINICODE_TIMEOUT_MS || undefined),
    flags.timeout !== undefined ? '--timeout' : 'MINICODE_TIMEOUT_MS',
  );
  let flagBudgetUsd: number | undefined;
  if (flags.budget !== undefined) {
    flagBudgetUsd = Number(flags.budget);
    if (!Number.isFinite(flagBudgetUsd) || flagBudgetUsd < 0)
      throw new MinicodeError(
        'MINICODE_E_USAGE',
        `--budget must be a non-negative number of USD, got "${flags.budget}"`,
        { action: 'pass --budget 0.50' },
      );
  }
  const retryPolicy = retryPolicyFromEnv(env);
  const contextWindow = positiveInt(env.MINICODE_CONTEXT_WINDOW || undefined, 'MINICODE_CONTEXT_WINDOW');
  const loaded = await loadConfig({ env, cwd, allowLocalConfig: flags.allowLocalConfig === true });
  const budgetUsd = flagBudgetUsd ?? loaded.config.budgetUsd;
  let budget: Budget | undefined;
  if (budgetUsd !== undefined) budget = { limitUsd: budgetUsd, strict: flags.budgetStrict === true };
  else if (flags.budgetStrict)
    throw new MinicodeError('MINICODE_E_USAGE', '--budget-strict needs --budget USD', {
      action: 'pass --budget 0.50 --budget-strict',
    });
  const folder = folderRecipeOf(loaded, flags.allowLocalConfig === true);
  const extensions = await folderExtensions(folder, cwd, env);
  const prompting = await promptingOf(flags, loaded.config, env, cwd, extensions);
  const closers: (() => Promise<void>)[] = [];
  let endpoint: ProviderEndpoint;
  const named = flags.provider ?? env.MINICODE_PROVIDER ?? loaded.config.provider;
  if (named === 'replay') {
    const dir = flags.cassette ?? env.MINICODE_CASSETTE;
    if (!dir)
      throw new MinicodeError('MINICODE_E_NO_PROVIDER', '--provider replay needs a cassette', {
        action: 'pass --cassette DIR (for example cassettes/demo)',
      });
    // Replay and record load only when asked for (their zod schemas and server cost start-up).
    const { openReplayProvider } = await import('../replay/provider.js');
    const replay = await openReplayProvider(
      path.resolve(dir),
      definedOnly({ ...replayOptions, model: flags.model || undefined }),
    );
    closers.push(() => replay.close());
    endpoint = { format: replay.format, model: replay.model, baseUrl: replay.baseUrl, apiKey: replay.apiKey };
  } else {
    const resolved = resolveProvider({
      provider: flags.provider,
      model: flags.model,
      baseUrl: flags.baseUrl,
      env,
      config: loaded.config,
    });
    if (resolved.format === 'replay')
      throw new MinicodeError('MINICODE_E_NO_PROVIDER', 'the replay provider needs --cassette DIR', {
        action: 'pass --provider replay --cassette DIR',
      });
    endpoint = { format: resolved.format, model: resolved.model, baseUrl: resolved.baseUrl, apiKey: resolved.apiKey };
  }
  const provider = providerSettings({
    ...endpoint,
    tuning: tuningOf(flags, loaded.config),
    retryPolicy: retryPolicy ?? DEFAULT_RETRY_POLICY,
  });
  const approval = (flags.approval as ApprovalModeName | undefined) ?? loaded.config.approval?.mode ?? 'auto';
  const storeDir = resolveStoreDir({ flag: flags.store, env });
  let sandbox: SandboxSettings;
  try {
    sandbox = resolveRunSandbox({
      flagMode: flagSandbox,
      allowNetwork: flags.allowNetwork === true,
      loaded,
      env,
      cwd,
      storeDir,
    });
  } catch (error) {
    await Promise.all(closers.map((c) => c()));
    throw error;
  }
  const setup: RunSetup = {
    loaded,
    provider,
    // The config's limits apply when no flag (or MINICODE_TIMEOUT_MS) gives one.
    limits: runLimits({
      maxSteps: flagMaxSteps ?? loaded.config.maxSteps ?? DEFAULT_RUN_LIMITS.maxSteps,
      timeoutMs: flagTimeoutMs ?? loaded.config.timeoutMs,
      budget,
      contextWindow: contextWindow ?? loaded.config.contextWindow,
      maxChildDepth: flagMaxChildDepth ?? loaded.config.children?.maxDepth ?? DEFAULT_RUN_LIMITS.maxChildDepth,
      maxChildren: flagMaxChildren ?? loaded.config.children?.maxConcurrent ?? DEFAULT_RUN_LIMITS.maxChildren,
    }),
    environment: toolEnvironment(cwd, {
      env,
      policy: policyOf(approval, loaded.config.approval),
      checkpoints: checkpointSettingsOf({ flag: flags.checkpoint, config: loaded.config.checkpoints, env }),
      sandbox,
      maskCredentialsInRequests: loaded.config.maskCredentialsInRequests ?? true,
      toolShapes: (flags.toolShapes as ToolShapeSetting | undefined) ?? loaded.config.tools?.shapes ?? 'native',
      hooks: extensions.hooks,
      agents: extensions.agents,
    }),
    prompting,
    folder,
    approval,
    storeDir,
    mcp: undefined,
    close: async () => {
      for (const c of closers) await c();
    },
  };
  if (flags.record) {
    const { createRecordingClient } = await import('../replay/record.js');
    try {
      provider.http = createRecordingClient({
        dir: path.resolve(flags.record),
        format: provider.format,
        model: provider.model,
      });
      recordingDirs.add(path.resolve(flags.record));
    } catch (error) {
      // A replay server may be listening already: left open, it would keep the process alive.
      await setup.close();
      throw new MinicodeError(
        'MINICODE_E_INPUT_UNREADABLE',
        `--record ${flags.record}: cannot write the cassette: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        {
          action: 'pass --record a writable directory',
          cause: error,
        },
      );
    }
  }
  return setup;
}

/** `--sandbox` checked: one of the modes, or MINICODE_E_USAGE (exit 2). */
export function sandboxModeFlag(value: string | undefined): SandboxMode | undefined {
  if (value === undefined) return undefined;
  if ((SANDBOX_MODES as readonly string[]).includes(value)) return value as SandboxMode;
  throw new MinicodeError('MINICODE_E_USAGE', `--sandbox must be one of ${SANDBOX_MODES.join(', ')}, got "${value}"`, {
    action: 'pass --sandbox workspace-write (the default), read-only or off',
  });
}

/**
 * The prompt settings of a run set up in `cwd`: `--system-prompt`'s file, `--append-system-prompt`,
 * the instructions (found from `cwd` unless `--no-instructions`; fallback names from config
 * `instructions.fallbackFiles`), `--output-schema`'s schema (ajv loads only then), and the
 * folder's commands and skills.
 */
async function promptingOf(
  flags: ExecFlags,
  config: LoadedConfig['config'],
  env: NodeJS.ProcessEnv,
  cwd: string,
  extensions: FolderExtensions,
): Promise<PromptSettings> {
  const recipe: PromptRecipe = {
    base: flags.systemPrompt !== undefined ? readTextFile(flags.systemPrompt, '--system-prompt') : undefined,
    append: flags.appendSystemPrompt,
    instructions: flags.instructions === false ? false : 'discover',
    fallbackFiles: config.instructions?.fallbackFiles,
    userDir: userInstructionsDir(env, os.homedir()),
  };
  const outputSchema =
    flags.outputSchema !== undefined
      ? (await import('../output-schema/compile.js')).loadOutputSchemaFile(flags.outputSchema)
      : undefined;
  const { commands, skills } = extensions;
  return promptSettings({ recipe, system: systemPromptFor(recipe, cwd, skills), outputSchema, commands, skills });
}

/** MINICODE_E_PROMPT_EMPTY (exit 2) for an empty or whitespace-only PROMPT, which must never reach a model or an agent. */
export function checkPrompt(prompt: string, command: string): void {
  if (prompt.trim() === '')
    throw new MinicodeError('MINICODE_E_PROMPT_EMPTY', 'the prompt is empty', {
      action: `say what to do: ${command} "fix the failing test"`,
    });
}

/**
 * The absolute path of a directory flag, or MINICODE_E_USAGE (exit 2) when the path names
 * something that is not a directory, or nothing while `mustExist` (default false: created later).
 */
export function directoryFlag(value: string, flag: string, options: { mustExist?: boolean } = {}): string {
  const dir = path.resolve(value);
  const stat = fs.statSync(dir, { throwIfNoEntry: false });
  if (stat && !stat.isDirectory())
    throw new MinicodeError('MINICODE_E_USAGE', `${flag} ${value}: not a directory`, {
      action: `pass ${flag} a directory`,
    });
  if (!stat && options.mustExist)
    throw new MinicodeError('MINICODE_E_USAGE', `${flag} ${value}: no such directory`, {
      action: `pass ${flag} an existing directory`,
    });
  return dir;
}

/** Cassette folders this process records into (a batch prepares one setup per provider/model pair). */
const recordingDirs = new Set<string>();

/**
 * MINICODE_E_USAGE (exit 2) for `--record DIR` where DIR already holds a cassette: recording
 * over it would replace its exchanges and leave those past the new run's count behind, a
 * cassette that replays a mix of two runs.
 */
function refuseRecordedCassette(dir: string, value: string): void {
  if (recordingDirs.has(dir) || !fs.existsSync(path.join(dir, 'cassette.json'))) return;
  throw new MinicodeError(
    'MINICODE_E_USAGE',
    `--record ${value}: already holds a cassette (cassette.json); recording again would overwrite it`,
    {
      action: 'pass --record a new or empty directory, or remove the old cassette first',
    },
  );
}

/** Reasoning and cache options from flags, then config; undefined when none is set. */
export function tuningOf(
  flags: Pick<ExecFlags, 'reasoning' | 'cacheTtl' | 'cacheKey'>,
  config: LoadedConfig['config'],
): RequestTuning | undefined {
  const tuning: RequestTuning = {};
  const reasoning = flags.reasoning ?? config.reasoning;
  if (reasoning !== undefined) {
    if (!(REASONING_LEVELS as readonly string[]).includes(reasoning)) {
      throw new MinicodeError(
        'MINICODE_E_USAGE',
        `--reasoning must be one of ${REASONING_LEVELS.join(', ')}, got "${reasoning}"`,
        { action: 'pass --reasoning medium' },
      );
    }
    tuning.reasoning = reasoning as ReasoningLevel;
  }
  const ttl = flags.cacheTtl ?? config.cacheTtl;
  if (ttl !== undefined) {
    if (!(CACHE_TTLS as readonly string[]).includes(ttl))
      throw new MinicodeError('MINICODE_E_USAGE', `--cache-ttl must be 5m or 1h, got "${ttl}"`, {
        action: 'pass --cache-ttl 1h',
      });
    tuning.cacheTtl = ttl as CacheTtl;
  }
  const key = flags.cacheKey ?? config.cacheKey;
  if (key !== undefined) {
    // OpenAI caps the key at 64 characters.
    if (key === '' || key.length > 64)
      throw new MinicodeError('MINICODE_E_USAGE', '--cache-key must be 1 to 64 characters', {
        action: 'pass --cache-key my-batch',
      });
    tuning.cacheKey = key;
  }
  if (config.imageDetail !== undefined) tuning.imageDetail = config.imageDetail;
  return Object.keys(tuning).length > 0 ? tuning : undefined;
}

/**
 * The approval policy of a run. An `allowTools` that lists only MCP names (`mcp__...`) adds them
 * to the default allowlist instead of replacing it: allowing one MCP server must not start
 * asking for `read_file`.
 */
export function policyOf(
  mode: ApprovalModeName,
  approval: { allowTools?: string[] | undefined; allowCommands?: string[] | undefined } | undefined,
): ApprovalPolicy {
  const policy: ApprovalPolicy = { mode };
  const allow = approval?.allowTools;
  if (allow)
    policy.allowTools =
      allow.length > 0 && allow.every((t) => t.startsWith(MCP_PREFIX)) ? [...DEFAULT_AUTO_TOOLS, ...allow] : allow;
  if (approval?.allowCommands) policy.allowCommands = approval.allowCommands;
  return policy;
}

/**
 * Start the config's MCP servers in `sandbox` (in parallel, each under its start-up deadline;
 * each stdio server in its own profile of it), for a caller that closes them: an ACP session
 * whose `sandbox` option turns the sandbox on or off against the connection's. Nothing is loaded
 * when none is configured.
 */
export async function startConfigMcp(
  setup: RunSetup,
  sandbox: SandboxSettings | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<McpManager | undefined> {
  if (!setup.loaded.config.mcpServers || Object.keys(setup.loaded.config.mcpServers).length === 0) return undefined;
  const { startMcp } = await import('../mcp/index.js');
  return startMcp(setup.loaded.config.mcpServers, {
    env,
    cwd: setup.environment.cwd,
    sandbox,
    files: setup.loaded.mcpServerFiles ?? {},
  });
}

/**
 * Start the config's MCP servers for this setup, in its sandbox; `setup.close()` then closes
 * them. Nothing is loaded when none is configured.
 */
export async function startRunMcp(
  setup: RunSetup,
  env: NodeJS.ProcessEnv = process.env,
): Promise<McpManager | undefined> {
  if (setup.mcp) return setup.mcp;
  const manager = await startConfigMcp(setup, setup.environment.sandbox, env);
  if (!manager) return undefined;
  setup.mcp = manager;
  setup.environment.toolSource = manager;
  const previous = setup.close;
  setup.close = async () => {
    await manager.close();
    await previous();
  };
  return manager;
}

/**
 * Open the session store (rejects with a MinicodeError naming the directory when it cannot be
 * opened). The store's code and lmdb load here, on first use, not with the command.
 */
export async function openRunStore(dir: string): Promise<EventStore> {
  const { openStore } = await import('../store/store.js');
  return openStore({ dir });
}
