/**
 * `mcpServers` entries as other agents write them: the examples of Claude Code's, Gemini CLI's
 * and Cursor's MCP documentation (JSON, as published), Codex's config.toml examples written as
 * the same keys in JSON, each read into minicode's shape; and entries that cannot be used,
 * skipped one by one with a problem naming the server and the key.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { parseServerEntry, SPELLINGS } from '../../lib/mcp/entry.js';
import { resolveServers } from '../../lib/mcp/resolve.js';

const read = (name: string, raw: unknown) => {
  const result = parseServerEntry(name, raw);
  if (!result.ok) throw new Error(result.problem.message);
  return result.config;
};
const problem = (name: string, raw: unknown) => {
  const result = parseServerEntry(name, raw);
  if (result.ok) throw new Error(`expected a problem, got ${JSON.stringify(result.config)}`);
  return result.problem;
};

describe('mcpServers entries from other agents', () => {
  it("reads Claude Code's .mcp.json examples, ${VAR:-default} in the URL included", () => {
    const list = resolveServers(
      {
        'shared-server': { command: '/path/to/server', args: [], env: {} },
        'api-server': {
          type: 'http',
          url: '${API_BASE_URL:-https://api.example.com}/mcp',
          headers: { Authorization: 'Bearer ${API_KEY}' },
        },
      },
      { API_KEY: 'k-123' },
      'config',
    );
    expect(list.problems).toEqual([]);
    expect(list.servers.map((s) => s.config)).toEqual([
      { command: '/path/to/server', args: [], env: {} },
      { type: 'http', url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer k-123' } },
    ]);
  });

  it("reads Gemini CLI's examples: httpUrl is Streamable HTTP, url stays untyped, timeout is the call deadline in ms, trust and the tool filters", () => {
    const list = resolveServers(
      {
        pythonTools: {
          command: 'python',
          args: ['-m', 'my_mcp_server', '--port', '8080'],
          cwd: './mcp-servers/python',
          env: { DATABASE_URL: '$DB_CONNECTION_STRING', API_KEY: '${EXTERNAL_API_KEY}' },
          timeout: 15000,
        },
        httpServer: { httpUrl: 'http://localhost:3000/mcp', timeout: 5000 },
        sseServer: { url: 'http://localhost:8080/sse', timeout: 30000 },
        filteredServer: {
          command: 'python',
          args: ['-m', 'my_mcp_server'],
          includeTools: ['safe_tool', 'file_reader'],
          excludeTools: ['dangerous_tool'],
          timeout: 30000,
          trust: true,
          description: 'a server',
        },
      },
      { DB_CONNECTION_STRING: 'postgres://db', EXTERNAL_API_KEY: 'ext' },
      'config',
    );
    expect(list.problems).toEqual([]);
    const [python, http, sse, filtered] = list.servers;
    expect(python!.config).toMatchObject({
      env: { DATABASE_URL: 'postgres://db', API_KEY: 'ext' },
      cwd: './mcp-servers/python',
    });
    expect(python!.toolTimeoutMs).toBe(15000);
    expect(http!.config).toEqual({ type: 'http', url: 'http://localhost:3000/mcp', toolTimeoutMs: 5000 });
    expect(sse!.config).toEqual({ url: 'http://localhost:8080/sse', toolTimeoutMs: 30000 });
    expect(filtered!.config).toMatchObject({
      includeTools: ['safe_tool', 'file_reader'],
      excludeTools: ['dangerous_tool'],
      trust: true,
    });
  });

  it("reads Codex's config.toml keys: env_vars, bearer_token_env_var, http_headers, env_http_headers, enabled_tools, disabled_tools and the timeouts in seconds", () => {
    const env = { LOCAL_TOKEN: 'lt', FIGMA_OAUTH_TOKEN: 'fig-tok', REGION_VAR: 'us-east-1' };
    const list = resolveServers(
      {
        context7: {
          command: 'npx',
          args: ['-y', '@upstash/context7-mcp'],
          env_vars: ['LOCAL_TOKEN', 'NOT_SET'],
          env: { MY_ENV_VAR: 'MY_ENV_VALUE' },
        },
        figma: {
          url: 'https://mcp.figma.com/mcp',
          bearer_token_env_var: 'FIGMA_OAUTH_TOKEN',
          http_headers: { 'X-Figma-Client': 'minicode' },
          env_http_headers: { 'X-Figma-Region': 'REGION_VAR' },
        },
        chrome_devtools: {
          url: 'http://localhost:3000/mcp',
          enabled_tools: ['open', 'screenshot'],
          disabled_tools: ['screenshot'],
          startup_timeout_sec: 20,
          tool_timeout_sec: 45,
          enabled: true,
        },
        off: { command: 'npx', enabled: false },
      },
      env,
      'config',
    );
    expect(list.problems).toEqual([]);
    expect(list.missing).toEqual([]);
    const [context7, figma, chrome] = list.servers;
    expect(context7!.config).toEqual({
      command: 'npx',
      args: ['-y', '@upstash/context7-mcp'],
      env: { LOCAL_TOKEN: 'lt', MY_ENV_VAR: 'MY_ENV_VALUE' },
    });
    expect(figma!.config).toEqual({
      url: 'https://mcp.figma.com/mcp',
      headers: { Authorization: 'Bearer fig-tok', 'X-Figma-Client': 'minicode', 'X-Figma-Region': 'us-east-1' },
    });
    expect(chrome!).toMatchObject({
      startupTimeoutMs: 20_000,
      toolTimeoutMs: 45_000,
      config: { includeTools: ['open', 'screenshot'], excludeTools: ['screenshot'] },
    });
    expect(list.disabled.map((d) => d.name)).toEqual(['off']);
  });

  it("reads Cursor's and Cline's spellings: ${env:VAR}, disabled: true, transportType", () => {
    expect(read('cursor', { command: 'npx', args: ['-y', 'mcp-server'], env: { API_KEY: '${env:MY_KEY}' } })).toEqual({
      command: 'npx',
      args: ['-y', 'mcp-server'],
      env: { API_KEY: '${env:MY_KEY}' },
    });
    const list = resolveServers(
      { cursor: { command: 'npx', env: { API_KEY: '${env:MY_KEY}' } }, cline: { command: 'npx', disabled: true } },
      { MY_KEY: 'v' },
      'config',
    );
    expect(list.servers[0]!.config).toMatchObject({ env: { API_KEY: 'v' } });
    expect(list.disabled.map((d) => d.name)).toEqual(['cline']);
    expect(read('c', { url: 'http://h/mcp', transportType: 'streamableHttp' })).toEqual({
      type: 'http',
      url: 'http://h/mcp',
    });
  });

  it('expands ${VAR} in command, args, env, url and headers', () => {
    const env = { BIN: '/opt/bin/server', DIR: '/srv', TOKEN: 't0k', HOST: 'mcp.local' };
    const list = resolveServers(
      {
        s: { command: '${BIN}', args: ['--root', '${DIR}/data'], env: { T: '${TOKEN}' } },
        h: { url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
      },
      env,
      'config',
    );
    expect(list.servers.map((s) => s.config)).toEqual([
      { command: '/opt/bin/server', args: ['--root', '/srv/data'], env: { T: 't0k' } },
      { url: 'https://mcp.local/mcp', headers: { Authorization: 'Bearer t0k' } },
    ]);
  });
});

describe('mcpServers entries that cannot be used', () => {
  it('name the server and the unknown key, with the known key a typo is close to', () => {
    const p = problem('gh', { command: 'x', excludeTool: ['a'] });
    expect(p.name).toBe('gh');
    expect(p.message).toContain('mcpServers.gh');
    expect(p.message).toContain('"excludeTool"');
    expect(p.message).toContain('"excludeTools"');
    expect(problem('gh', { command: 'x', frobnicate: 1 }).message).toContain('unknown key "frobnicate"');
  });

  it('name keys other agents document that minicode cannot honour, with what to do instead', () => {
    expect(problem('a', { command: 'x', autoApprove: ['t'] }).action).toContain('approval.allowTools');
    expect(problem('b', { url: 'https://h/mcp', headersHelper: '/bin/helper' }).message).toContain(
      '"headersHelper" is not supported',
    );
  });

  it('name the key as the user wrote it when its value has the wrong type', () => {
    expect(problem('c', { command: 'x', tool_timeout_sec: 'soon' }).message).toContain('tool_timeout_sec');
    expect(problem('c', { url: 'https://h/mcp', enabled_tools: 'all' }).message).toContain('enabled_tools');
  });

  it('refuse two spellings of one meaning, a command beside a URL, keys of the other kind, and a bad URL', () => {
    expect(problem('d', { url: 'https://h/mcp', httpUrl: 'https://h/mcp' }).message).toMatch(
      /"httpUrl" and "url"|"url" and "httpUrl"/,
    );
    expect(problem('e', { command: 'x', url: 'https://h' }).message).toContain('both');
    expect(problem('f', { command: 'x', headers: { A: 'b' } }).message).toContain(
      '"headers" does not apply to a stdio server',
    );
    expect(problem('g', { url: 'ftp://h/x' }).message).toContain('url');
    expect(problem('h', {}).message).toContain('needs "command"');
  });

  it('skip only the bad entry: the others start', () => {
    const list = resolveServers(
      {
        good: { command: 'x' },
        bad: { httpUrl: 'https://h/mcp', includeTool: [] },
        worse: 'nope',
        also: { command: 'y' },
      },
      {},
      'config',
    );
    expect(list.servers.map((s) => s.name)).toEqual(['good', 'also']);
    expect(list.problems.map((p) => p.name)).toEqual(['bad', 'worse']);
  });

  it('skip an entry whose URL is not one once its variables expand, and name the unset variable', () => {
    const list = resolveServers({ r: { url: '${MCP_URL}' } }, {}, 'config');
    expect(list.servers).toEqual([]);
    expect(list.missing).toEqual([{ server: 'r', variable: 'MCP_URL' }]);
    expect(list.problems[0]!.message).toContain('mcpServers.r');
  });
});

describe('the spellings table in the docs', () => {
  it('lists every spelling minicode reads', () => {
    const docs = fs.readFileSync(path.join(ROOT, 'docs/mcp.md'), 'utf8');
    for (const key of Object.keys(SPELLINGS)) expect(docs, key).toContain(`\`${key}\``);
  });
});
