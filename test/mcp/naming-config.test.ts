import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ConfigSchema } from '../../lib/config.js';
import { expandVariables } from '../../lib/mcp/config.js';
import { resolveServers } from '../../lib/mcp/resolve.js';
import { serverEnvironment } from '../../lib/mcp/env.js';
import { MAX_TOOL_NAME, mcpToolName } from '../../lib/mcp/naming.js';
import { resultContent } from '../../lib/mcp/output.js';
import { decide } from '../../lib/policy/decide.js';
import { policyOf } from '../../lib/agent/run-setup.js';

describe('MCP tool names', () => {
  it('are mcp__<server>__<tool> with characters outside [A-Za-z0-9_-] replaced', () => {
    expect(mcpToolName('git hub', 'create.issue/v2', new Set())).toBe('mcp__git_hub__create_issue_v2');
  });

  it('are cut to 64 characters with a short hash suffix when longer', () => {
    const name = mcpToolName('server', 'x'.repeat(100), new Set());
    expect(name).toHaveLength(MAX_TOOL_NAME);
    expect(name).toMatch(/^mcp__server__x+_[0-9a-f]{8}$/);
  });

  it('never collide, whatever the servers and tools (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 70 }), fc.string({ maxLength: 90 })), { maxLength: 40 }),
        (pairs) => {
          const taken = new Set<string>();
          const unique = new Map(pairs.map(([s, t]) => [`${s}\u0000${t}`, [s, t] as const]));
          const names = [...unique.values()].map(([s, t]) => mcpToolName(s, t, taken));
          expect(new Set(names).size).toBe(names.length);
          for (const n of names) {
            expect(n.length).toBeLessThanOrEqual(MAX_TOOL_NAME);
            expect(n).toMatch(/^[A-Za-z0-9_-]+$/);
          }
        },
      ),
    );
  });

  it('give two sanitised twins different names', () => {
    const taken = new Set<string>();
    expect(mcpToolName('s', 'a.b', taken)).toBe('mcp__s__a_b');
    expect(mcpToolName('s', 'a/b', taken)).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/);
  });
});

describe('mcpServers config', () => {
  it('accepts the .mcp.json shape plus minicode fields, and leaves entries to be read one by one', () => {
    const ok = ConfigSchema.safeParse({
      mcpServers: {
        fs: { command: 'npx', args: ['-y', 'x'], env: { A: 'b' }, startupTimeoutMs: 5000, includeTools: ['read'] },
        remote: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
        bad: { args: ['x'] },
      },
    });
    expect(ok.success).toBe(true);
    const list = resolveServers(ok.data!.mcpServers, {}, 'config');
    expect(list.servers.map((s) => s.name)).toEqual(['fs', 'remote']);
    expect(list.problems.map((p) => p.name)).toEqual(['bad']);
    expect(ConfigSchema.safeParse({ mcpServers: ['not', 'a', 'map'] }).success).toBe(false);
  });

  it('expands ${VAR} and ${VAR:-default} in env and headers, and reports unset variables', () => {
    const missing: string[] = [];
    expect(expandVariables('Bearer ${TOKEN}', { TOKEN: 'abc' }, missing)).toBe('Bearer abc');
    expect(expandVariables('${NOPE:-fallback}', {}, missing)).toBe('fallback');
    expect(expandVariables('x${GONE}y', {}, missing)).toBe('xy');
    expect(missing).toEqual(['GONE']);
    const [server] = resolveServers(
      { r: { url: 'https://e.com/mcp', headers: { Authorization: 'Bearer ${T}' } } },
      { T: 'tok' },
      'config',
    ).servers;
    expect(server!.config).toMatchObject({ headers: { Authorization: 'Bearer tok' } });
    expect(server).toMatchObject({ startupTimeoutMs: 10_000, toolTimeoutMs: 60_000 });
  });

  it('skips servers with enabled: false', () => {
    const list = resolveServers({ a: { command: 'x', enabled: false }, b: { command: 'y' } }, {}, 'config');
    expect(list.servers.map((s) => s.name)).toEqual(['b']);
    expect(list.disabled.map((s) => s.name)).toEqual(['a']);
  });

  it('builds a server environment from a minimal base and the config env only', () => {
    const env = serverEnvironment(
      { PATH: '/bin', HOME: '/h', GITHUB_TOKEN: 'ghp_x', RANDOM_VAR: 'r', BASH_FUNC: '() { :; }' },
      { API_KEY: 'given' },
    );
    expect(env).toEqual({ PATH: '/bin', HOME: '/h', API_KEY: 'given' });
  });
});

describe('MCP output', () => {
  it('turns resources into text or placeholders and never passes base64 on', () => {
    const out = resultContent({
      content: [
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'file text' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA' } },
        { type: 'resource_link', uri: 'file:///c', name: 'c' },
        { type: 'audio', data: 'AAAAAAAA', mimeType: 'audio/wav' },
      ],
    });
    expect(out.text).toBe(
      '[resource file:///a.txt text/plain]\nfile text\n[resource file:///b.bin, 3 bytes binary, not shown]\n[resource link file:///c (c)]\n[audio audio/wav, 6 bytes, not shown]',
    );
  });
});

describe('MCP tools under the approval policy', () => {
  const mcp = { name: 'mcp__gh__create_issue', kind: 'other' as const, gated: true, server: 'gh' };

  it('are denied without a TTY, with a reason saying how to allow them', () => {
    const d = decide(mcp, { mode: 'auto' }, { tty: false });
    expect(d.decision).toBe('deny');
    expect(d.reason).toMatch(/no TTY/);
    expect(d.reason).toContain('approval.allowTools');
  });

  it('ask on a TTY', () => {
    expect(decide(mcp, { mode: 'auto' }, { tty: true }).decision).toBe('ask');
  });

  it('run when auto mode lists the exact name or mcp__<server>__*', () => {
    expect(decide(mcp, { mode: 'auto', allowTools: ['mcp__gh__create_issue'] }, { tty: false }).decision).toBe('allow');
    expect(decide(mcp, { mode: 'auto', allowTools: ['mcp__gh__*'] }, { tty: false }).decision).toBe('allow');
    expect(decide(mcp, { mode: 'auto', allowTools: ['mcp__other__*'] }, { tty: false }).decision).toBe('deny');
    expect(decide(mcp, { mode: 'ask', allowTools: ['mcp__gh__*'] }, { tty: false }).decision).toBe('deny');
  });

  it('are denied in read-only mode even when listed', () => {
    expect(decide(mcp, { mode: 'read-only', allowTools: ['mcp__gh__*'] }, { tty: true })).toMatchObject({
      decision: 'deny',
      reason: expect.stringMatching(/read-only/),
    });
  });

  it('of a trusted server run without asking in ask and auto modes, and are still denied in read-only', () => {
    const trusted = { ...mcp, trusted: true };
    expect(decide(trusted, { mode: 'ask' }, { tty: false }).decision).toBe('allow');
    expect(decide(trusted, { mode: 'auto' }, { tty: false }).decision).toBe('allow');
    expect(decide(trusted, { mode: 'read-only' }, { tty: true }).decision).toBe('deny');
    expect(
      decide({ name: 'git_commit', kind: 'execute', gated: true, trusted: true }, { mode: 'auto' }, { tty: false })
        .decision,
    ).toBe('deny');
  });

  it('keep git_commit gated even if an allowlist names it', () => {
    expect(
      decide(
        { name: 'git_commit', kind: 'execute', gated: true },
        { mode: 'auto', allowTools: ['git_commit'] },
        { tty: false },
      ).decision,
    ).toBe('deny');
  });

  it('add to the default allowlist when allowTools lists only MCP names', () => {
    const policy = policyOf('auto', { allowTools: ['mcp__gh__*'] });
    expect(policy.allowTools).toContain('read_file');
    expect(policy.allowTools).toContain('mcp__gh__*');
    expect(policyOf('auto', { allowTools: ['read_file'] }).allowTools).toEqual(['read_file']);
  });
});
