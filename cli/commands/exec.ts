import { Command, Option } from 'commander';

import type { ExecFlags } from '../../lib/agent/run-setup.js';
import { CACHE_TTLS, REASONING_LEVELS } from '../../lib/agent/requests/types.js';
import { SANDBOX_MODES } from '../../lib/sandbox/settings.js';
import { APPROVAL_MODES } from '../../lib/policy/decide.js';
import { TOOL_SHAPE_SETTINGS } from '../../lib/tools/shape-setting.js';

/** `--sandbox` and `--allow-network`, for every command that runs the agent's commands (exec, chat, batch, acp). */
export function addSandboxFlags(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--sandbox <mode>',
        'OS sandbox of bash, verify and stdio MCP servers (default: config sandbox.mode, else workspace-write)',
      ).choices([...SANDBOX_MODES]),
    )
    .option('--allow-network', 'open the network inside the sandbox (off by default)');
}

/** `--max-child-depth` and `--max-children`, for every command whose runs may start child sessions (exec, chat, batch, acp). */
export function addChildLimitFlags(command: Command): Command {
  return command
    .option(
      '--max-child-depth <n>',
      'how deep child sessions (the task tool) may nest: 0 none, 1 children that start none of their own (default: config children.maxDepth, else 1)',
    )
    .option(
      '--max-children <n>',
      'child sessions of one run running at once; more wait for a slot (default: config children.maxConcurrent, else 4)',
    );
}

/** Add the provider and run flags shared by every command that runs the agent. */
export function addRunFlags(command: Command): Command {
  command
    .option('--provider <name>', 'openai-chat | openai-responses | anthropic | gemini | ollama | replay')
    .option('--model <name>', "model name (default: the provider's default or config)")
    .option(
      '--base-url <url>',
      'endpoint of an OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio, OpenRouter)',
    )
    .option('--cassette <dir>', 'with --provider replay: the recorded exchanges to serve over loopback HTTP')
    .option('--record <dir>', 'save every provider exchange (secrets redacted) to a cassette directory')
    .option('--budget <usd>', 'stop the run once its estimated cost passes this many USD')
    .option('--budget-strict', 'treat an unknown cost as over the budget')
    .option('--max-steps <n>', 'most model requests in one run (default 40)');
  addChildLimitFlags(command)
    .option('--timeout <ms>', 'run deadline in milliseconds (default: MINICODE_TIMEOUT_MS)')
    .addOption(
      new Option(
        '--reasoning <level>',
        "reasoning effort / thinking budget (default: config, else the provider's default)",
      ).choices([...REASONING_LEVELS]),
    )
    .addOption(
      new Option('--cache-ttl <ttl>', 'Anthropic prompt-cache lifetime (1h for long batches; default 5m)').choices([
        ...CACHE_TTLS,
      ]),
    )
    .option('--cache-key <key>', 'OpenAI prompt_cache_key (default: a hash of model, system prompt and tools)')
    .addOption(
      new Option('--approval <mode>', 'approval mode for edits and commands')
        .choices([...APPROVAL_MODES])
        .default('auto'),
    )
    .option('--allow-local-config', 'trust .minicode/config.json and .mcp.json in the project (ignored by default)')
    .option(
      '--store <dir>',
      'session store directory (default: $MINICODE_HOME/store, else $XDG_DATA_HOME/minicode/store or ~/.local/share/minicode/store)',
    )
    .option('--cwd <dir>', 'project directory (default: the current directory)')
    .option(
      '--system-prompt <file>',
      "replace minicode's system prompt with this file's text (project instructions are still added)",
    )
    .option('--append-system-prompt <text>', 'add this text after the system prompt')
    .option(
      '--no-instructions',
      'send no project instructions (AGENTS.md, config instructions.fallbackFiles, $MINICODE_HOME/AGENTS.md)',
    )
    .addOption(
      new Option(
        '--tool-shapes <shapes>',
        "native: the vendor's editor, bash and apply_patch tools where the model is trained on them; minicode: minicode's own for every model (default: config tools.shapes, else native)",
      ).choices([...TOOL_SHAPE_SETTINGS]),
    );
  return addSandboxFlags(command);
}

/** `--output-schema FILE`, for the commands whose runs can return a typed result (exec, batch). */
export function addOutputSchemaFlag(command: Command): Command {
  return command.option(
    '--output-schema <file>',
    'a JSON Schema (draft 2020-12 or draft-07) the result must match: submit_result takes it, an invalid result goes back to the model, none valid ends result_invalid (exit 65)',
  );
}

/** `--no-checkpoint`, for the commands that take workspace checkpoints (exec, chat, run, batch). */
export function addCheckpointFlag(command: Command): Command {
  return command.option(
    '--no-checkpoint',
    "take no workspace checkpoint (the run's changes cannot be undone with minicode undo)",
  );
}

/**
 * `minicode exec PROMPT [--json]`: one agent run. Exit codes: 0 completed, 1 any other
 * outcome or a setup failure (with exactly one `ok:false` summary line under --json), 2 a
 * usage error (an empty prompt among them), 130 aborted by SIGINT. A closed stdout does not
 * stop the run: the exit code is still the run's own.
 */
export function registerExec(program: Command): void {
  const command = program
    .command('exec')
    .description('run the agent once on PROMPT and exit')
    .argument(
      '[prompt]',
      'what to do; - (or none, with stdin not a terminal) reads it from stdin; with a PROMPT, piped stdin is added as context',
    )
    .option('--prompt-file <file>', 'read the prompt from this file')
    .option(
      '-i, --image <file>',
      'send this image (PNG, JPEG, GIF or WebP; at most 5 MiB and 8000 px a side) with the prompt; repeatable',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--json', 'JSON lines on stdout: envelopes, text records, one summary last')
    .addOption(
      new Option(
        '--json-children <mode>',
        "with --json: child sessions' (task tool) envelopes among the parent's (events, the default; each names its sessionId) or only their session.started and session.ended (summary)",
      )
        .choices(['events', 'summary'])
        .default('events'),
    )
    .option(
      '--verify [cmd]',
      'after the run, run the verify command (default: MINICODE_VERIFY_CMD, config, or detection)',
    )
    .option('--verbose', 'show verbose facts (reasoning, provider tool calls, recoveries)');
  addOutputSchemaFlag(addCheckpointFlag(addRunFlags(command))).action(
    async (prompt: string | undefined, flags: ExecFlags) => {
      const { execAction } = await import('../exec-action.js');
      process.exitCode = await execAction(prompt, flags);
    },
  );
}
