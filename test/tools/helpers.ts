import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  DEFAULT_TOOL_LIMITS,
  type ApprovalDecision,
  type ApprovalRequest,
  type ToolContext,
  type ToolLimits,
} from '../../lib/tools/index.js';

/** A scratch workspace with the given files. */
export function scratch(files: Record<string, string> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-tools-'));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

/** A tool context over `cwd`; approvals answer `decision` and are recorded in `asked`. */
export function context(
  cwd: string,
  overrides: Partial<ToolContext> & { decision?: ApprovalDecision; limits?: Partial<ToolLimits> } = {},
) {
  const asked: ApprovalRequest[] = [];
  const { decision = 'deny', limits, ...rest } = overrides;
  const ctx: ToolContext = {
    cwd,
    signal: new AbortController().signal,
    approve: async (request) => {
      asked.push(request);
      return decision;
    },
    limits: { ...DEFAULT_TOOL_LIMITS, ...limits },
    ...rest,
  };
  return { ctx, asked };
}
