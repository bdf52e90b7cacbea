import type { z } from 'zod';
import { INPUT_JSON_SCHEMAS } from './input-json-schemas.js';
import { GlobInput } from './input-schemas.js';
import { confinePath, isOutcome } from './paths.js';
import type { Tool } from './types.js';

type Input = z.infer<typeof GlobInput>;
const JSON_SCHEMA = INPUT_JSON_SCHEMAS.glob!;

/** `glob`: list files matching a pattern, skipping node_modules, .git and build output. */
export const globTool: Tool<Input> = {
  name: 'glob',
  description:
    'List files matching a glob pattern (node_modules, .git, build output and .gitignored files are skipped). Paths are relative to the workspace.',
  inputSchema: GlobInput,
  jsonSchema: JSON_SCHEMA,
  kind: 'search',
  gated: false,
  title: (input) => input.pattern,
  async run(input, ctx) {
    // The walker and its packages (ignore, picomatch) load with the first search: most runs never search.
    const { compileGlob, walkFiles } = await import('./walk.js');
    const glob = compileGlob(input.pattern);
    if (!glob.ok)
      return {
        status: 'failed',
        cause: 'TOOL_ERROR',
        message: glob.message,
        hint: 'check the brackets and braces of the pattern, e.g. `src/**/*.{ts,tsx}`',
      };
    const resolved = await confinePath(ctx, 'glob', input.path ?? '.', 'list');
    if (isOutcome(resolved)) return resolved;
    const matches: string[] = [];
    let more = false;
    for await (const file of walkFiles(resolved.absolute, { signal: ctx.signal, ignoreRoot: ctx.cwd })) {
      if (!glob.test(file)) continue;
      if (matches.length >= ctx.limits.maxResults) {
        more = true;
        break;
      }
      // Shown workspace-relative, so the model can pass them straight to read_file.
      matches.push(resolved.display === '.' ? file : `${resolved.display}/${file}`);
    }
    const output =
      matches.length === 0
        ? 'No files matched.'
        : matches.join('\n') + (more ? `\n[... more than ${ctx.limits.maxResults} matches; narrow the pattern]` : '');
    return {
      status: 'completed',
      summary: `${matches.length}${more ? '+' : ''} files match ${input.pattern}`,
      output,
      receipt: { paths: matches.slice(0, 20), truncated: more },
    };
  },
};
