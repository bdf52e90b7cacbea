import { execFile } from 'node:child_process';
import type { z } from 'zod';
import { INPUT_JSON_SCHEMAS } from './input-json-schemas.js';
import { GitCommitInput } from './input-schemas.js';
import { scrubEnv } from '../policy/credentials.js';
import { capHeadTail } from './truncate.js';
import type { Tool, ToolContext } from './types.js';

type Input = z.infer<typeof GitCommitInput>;
const JSON_SCHEMA = INPUT_JSON_SCHEMAS.git_commit!;

/** git's own output cap: 500k chars. */
const GIT_MAX_OUTPUT = 500_000;

function git(args: string[], ctx: ToolContext): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      { cwd: ctx.cwd, env: scrubEnv(ctx.env ?? process.env), signal: ctx.signal, maxBuffer: GIT_MAX_OUTPUT * 2 },
      (error, stdout, stderr) => {
        const out = `${stdout}${stderr}`;
        const code = error
          ? typeof (error as { code?: unknown }).code === 'number'
            ? (error as { code: number }).code
            : 1
          : 0;
        resolve({ code, out });
      },
    );
  });
}

/**
 * `git_commit`: stage and commit. Gated: it always asks, and is denied without a TTY (seed
 * automation-ci: "git_commit ... di non-TTY selalu ditolak"). The approval happens in the
 * loop's policy step before `run` is called.
 */
export const gitCommitTool: Tool<Input> = {
  name: 'git_commit',
  description: "Stage changes and create a git commit in the workspace. Requires the user's approval.",
  inputSchema: GitCommitInput,
  jsonSchema: JSON_SCHEMA,
  kind: 'execute',
  gated: true,
  title: (input) => `git commit -m ${JSON.stringify(input.message.split('\n')[0])}`,
  async run(input, ctx) {
    const add = await git(input.paths && input.paths.length > 0 ? ['add', '--', ...input.paths] : ['add', '-u'], ctx);
    if (add.code !== 0)
      return {
        status: 'failed',
        cause: 'TOOL_ERROR',
        message: 'git add failed',
        output: capHeadTail(add.out, GIT_MAX_OUTPUT).text,
      };
    const commit = await git(['commit', '-m', input.message], ctx);
    const output = capHeadTail(commit.out, GIT_MAX_OUTPUT).text;
    if (commit.code !== 0)
      return {
        status: 'failed',
        cause: 'TOOL_ERROR',
        message: 'git commit failed',
        output,
        receipt: { exitCode: commit.code },
      };
    const head = await git(['rev-parse', '--short', 'HEAD'], ctx);
    return { status: 'completed', summary: `committed ${head.out.trim()}`, output, receipt: { exitCode: 0 } };
  },
};
