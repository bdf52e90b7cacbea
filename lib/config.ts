/**
 * The config file's schema and its validation (zod). Reading, merging and loading the files is
 * lib/config-files.ts's, which imports this module only when there is a file to validate.
 */
import { z } from 'zod';
import { CheckpointConfigSchema } from './checkpoints/settings-schema.js';
import { CACHE_TTLS, REASONING_LEVELS } from './agent/requests/types.js';
import { OPENAI_IMAGE_DETAILS } from './images/tokens.js';
import { MinicodeError } from './errors.js';
import { MAX_TIMER_MS } from './control/timers.js';
import { McpServersSchema } from './mcp/config.js';
import { HOST_PATTERN } from './sandbox/network-proxy.js';
import { SANDBOX_MODES } from './sandbox/settings.js';
import { TOOL_SHAPE_SETTINGS } from './tools/shape-setting.js';
import { HooksSchema } from './hooks/schema.js';

/** The `sandbox` section: the OS boundary around `bash`, `verify` and stdio MCP servers (docs/sandbox.md). */
const SandboxSchema = z.strictObject({
  mode: z.enum(SANDBOX_MODES).optional(),
  /** Paths hidden inside the sandbox besides the default credential paths; `!PATH` takes one off the list. */
  readDeny: z.array(z.string().min(1)).optional(),
  /** Paths writable besides the workspace (`workspace-write`). */
  writeAllow: z.array(z.string().min(1)).optional(),
  network: z
    .strictObject({
      /** Hosts reachable through minicode's allowlisting proxy: `registry.npmjs.org`, `*.github.com` (its subdomains). */
      allow: z.array(z.string().regex(HOST_PATTERN, 'a host name, or *. and a host name')).optional(),
    })
    .optional(),
  env: z
    .strictObject({
      inherit: z.enum(['all', 'core']).optional(),
      /** Credential variables a command may keep. */
      pass: z.array(z.string().min(1)).optional(),
    })
    .optional(),
});

const ProviderSettings = z.object({
  model: z.string().min(1).optional(),
  baseUrl: z.string().url().optional(),
  /** Name of the variable holding the key, when not the conventional one. */
  apiKeyEnv: z.string().min(1).optional(),
});

/**
 * The config file's schema. Unknown keys are kept (a newer minicode may add some); a known key
 * with the wrong type makes the whole file invalid, with the path of the offending key.
 */
export const ConfigSchema = z.looseObject({
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  baseUrl: z.string().url().optional(),
  providers: z.record(z.string(), ProviderSettings).optional(),
  approval: z
    .object({
      mode: z.enum(['ask', 'auto', 'read-only']),
      allowTools: z.array(z.string()).optional(),
      allowCommands: z.array(z.string()).optional(),
    })
    .optional(),
  verify: z.union([z.string().min(1), z.object({ command: z.string().min(1) })]).optional(),
  budgetUsd: z.number().nonnegative().optional(),
  maxSteps: z.number().int().positive().optional(),
  timeoutMs: z.number().int().positive().max(MAX_TIMER_MS).optional(),
  /** The model's context window in tokens, when the built-in table does not know it. */
  contextWindow: z.number().int().positive().optional(),
  allowedPaths: z.array(z.string()).optional(),
  /** `false` turns workspace checkpoints off; an object overrides their limits. */
  checkpoints: CheckpointConfigSchema.optional(),
  /** Reasoning effort sent with every request (`--reasoning` wins). */
  reasoning: z.enum(REASONING_LEVELS).optional(),
  /** Anthropic prompt-cache lifetime (`--cache-ttl` wins). */
  cacheTtl: z.enum(CACHE_TTLS).optional(),
  /** OpenAI `prompt_cache_key` (`--cache-key` wins). */
  cacheKey: z.string().min(1).max(64).optional(),
  /** The `detail` sent with every image to the OpenAI formats (low: 85 tokens an image; default auto). */
  imageDetail: z.enum(OPENAI_IMAGE_DETAILS).optional(),
  /** Project instructions: the names tried in a folder without AGENTS.md, in order (default CLAUDE.md, GEMINI.md; [] for none). */
  instructions: z
    .object({
      fallbackFiles: z.array(
        z
          .string()
          .min(1)
          .regex(/^[^/\\]+$/, 'a file name, not a path')
          .refine((n) => n !== '.' && n !== '..', 'a file name, not a path'),
      ),
    })
    .optional(),
  /** The tools' shapes: `native` (default) offers a model the vendor's tools it is trained on where it has them, `minicode` always ours (`--tool-shapes` wins). */
  tools: z.strictObject({ shapes: z.enum(TOOL_SHAPE_SETTINGS).optional() }).optional(),
  /** `false` sends the environment's credential values to the provider as tools printed them; default true (masked). */
  maskCredentialsInRequests: z.boolean().optional(),
  /** MCP servers, in the `.mcp.json` shape (see lib/mcp/config.ts). */
  mcpServers: McpServersSchema.optional(),
  sandbox: SandboxSchema.optional(),
  /** Hooks in Claude Code's shape, and `readClaudeSettings` (docs/hooks.md). */
  hooks: HooksSchema.optional(),
  /** Child sessions (the `task` tool): how deep they nest (0 none; default 1) and how many run at once (default 4); `--max-child-depth` and `--max-children` win. */
  children: z
    .strictObject({
      maxDepth: z.number().int().nonnegative().optional(),
      maxConcurrent: z.number().int().positive().optional(),
    })
    .optional(),
  /** Skills: `readClaudeSkills` also reads the project's `.claude/skills/` (with `--allow-local-config`; docs/commands-and-skills.md). */
  skills: z.strictObject({ readClaudeSkills: z.boolean().optional() }).optional(),
});
/** A validated config. */
export type Config = z.infer<typeof ConfigSchema>;

/**
 * Validate a project's `.mcp.json` (`{"mcpServers": {...}}`, Claude Code's and Cursor's file): only
 * `mcpServers` is taken from it, so it can add servers but never set a provider or a policy.
 */
export function validateMcpJson(raw: unknown, file: string): Config {
  const parsed = z.looseObject({ mcpServers: McpServersSchema }).safeParse(raw);
  if (!parsed.success) {
    throw new MinicodeError(
      'MINICODE_E_CONFIG_INVALID',
      `${file}: ${parsed.error.issues[0]!.path.join('.') || '(top level)'}: ${parsed.error.issues[0]!.message}`,
      {
        action: `make ${file} an object with an "mcpServers" object, as Claude Code writes it`,
        data: { path: file, issues: parsed.error.issues.length },
      },
    );
  }
  return { mcpServers: parsed.data.mcpServers };
}

/** Validate one config file's JSON: a known key with the wrong type is a coded error naming its path. */
export function validateConfig(raw: unknown, file: string): Config {
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
    throw new MinicodeError('MINICODE_E_CONFIG_INVALID', `config ${file}: ${where}: ${issue.message}`, {
      action: `fix "${where}" in ${file}`,
      data: { path: file, issues: parsed.error.issues.length },
    });
  }
  return parsed.data;
}
