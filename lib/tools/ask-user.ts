import type { z } from 'zod';
import { INPUT_JSON_SCHEMAS } from './input-json-schemas.js';
import { AskUserInput } from './input-schemas.js';
import type { Tool } from './types.js';

type Input = z.infer<typeof AskUserInput>;
const JSON_SCHEMA = INPUT_JSON_SCHEMAS.ask_user!;

/** The reason given when nobody can answer; the same words the policy uses. */
export const ASK_USER_NO_TTY =
  'ask_user denied: no TTY to ask the question (CI or piped run); write a self-contained prompt instead';

/**
 * `ask_user`: ask the person mid-run. Gated, and fails closed: without a TTY or a prompt
 * renderer it is denied at once, so a CI build never hangs on a question nobody sees.
 */
export const askUserTool: Tool<Input> = {
  name: 'ask_user',
  description: 'Ask the user a clarifying question and wait for the answer. Only works in an interactive terminal.',
  inputSchema: AskUserInput,
  jsonSchema: JSON_SCHEMA,
  kind: 'other',
  gated: true,
  readOnly: true,
  title: (input) => input.question.split('\n')[0] ?? 'question',
  async run(input, ctx) {
    if (!ctx.tty || !ctx.promptAskText) return { status: 'denied', reason: ASK_USER_NO_TTY };
    try {
      const answer = await ctx.promptAskText(input.question, ctx.signal);
      return { status: 'completed', summary: 'user answered', output: answer };
    } catch (error) {
      if (ctx.signal.aborted) return { status: 'failed', cause: 'USER_ERROR', message: 'question cancelled' };
      return { status: 'failed', cause: 'TOOL_ERROR', message: `could not ask: ${(error as Error).message}` };
    }
  },
};
