#!/usr/bin/env node
/**
 * A hand-made MCP server (stdio) for minicode's hostile-case tests, written with the official
 * SDK. Flags: --slow-start MS (wait before answering anything), --many-tools N (N extra tools),
 * --stderr TEXT (one stderr line at start), --exit-at-start (exit 3 before connecting),
 * --pid-file FILE (append its pid), --ignore-sigterm.
 * Tools: echo, env (its own environment names and one value), crash (exits mid-call), big (a
 * 5 MB text), image, fail (isError), hang (never answers; logs "cancelled" on stderr when the
 * client cancels), progress (progress notifications, then an answer), add_tool (registers
 * `late_tool`, which sends tools/list_changed).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const argv = process.argv.slice(2);
const flag = (name) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
};
if (argv.includes('--exit-at-start')) {
  process.stderr.write('hostile: exiting at start as asked\n');
  process.exit(3);
}
const slow = Number(flag('--slow-start') ?? 0);
const many = Number(flag('--many-tools') ?? 0);
const stderrLine = flag('--stderr');
const pidFile = flag('--pid-file');
// --ignore-sigterm: only SIGKILL ends it (the client's escalation is what is tested): neither
// SIGTERM nor the end of its stdin, which would otherwise let its event loop drain.
if (argv.includes('--ignore-sigterm')) {
  process.on('SIGTERM', () => process.stderr.write('hostile: SIGTERM ignored\n'));
  setInterval(() => {}, 1 << 30);
}
if (pidFile) (await import('node:fs')).appendFileSync(pidFile, `${process.pid}\n`);

const server = new McpServer({ name: 'hostile', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
const text = (t) => ({ content: [{ type: 'text', text: t }] });

server.registerTool(
  'echo',
  { description: 'Echo the text back', inputSchema: { text: z.string() } },
  async ({ text: t }) => text(`echo: ${t}`),
);
server.registerTool(
  'env',
  { description: 'Report the environment', inputSchema: { name: z.string().optional() } },
  async ({ name }) =>
    text(JSON.stringify({ names: Object.keys(process.env).sort(), value: name ? (process.env[name] ?? null) : null })),
);
server.registerTool('crash', { description: 'Exit in the middle of the call' }, async () => {
  setTimeout(() => process.exit(7), 5);
  return new Promise(() => {});
});
server.registerTool('big', { description: 'A 5 MB result' }, async () => text('x'.repeat(5 * 1024 * 1024)));
server.registerTool('image', { description: 'An image' }, async () => ({
  content: [
    { type: 'text', text: 'a picture:' },
    { type: 'image', data: Buffer.alloc(3000, 1).toString('base64'), mimeType: 'image/png' },
  ],
}));
server.registerTool('fail', { description: 'Fail with isError' }, async () => ({
  content: [{ type: 'text', text: 'disk quota exceeded on /data' }],
  isError: true,
}));
server.registerTool('hang', { description: 'Never answer' }, async (extra) => {
  process.stderr.write('hang: started\n');
  return new Promise((_resolve, reject) => {
    extra.signal.addEventListener('abort', () => {
      process.stderr.write(`hang: cancelled by the client (${extra.signal.reason})\n`);
      reject(new Error('cancelled'));
    });
  });
});
server.registerTool(
  'progress',
  {
    description: 'Report progress three times, then answer',
    inputSchema: { steps: z.number().int().optional(), delayMs: z.number().int().optional() },
  },
  async ({ steps = 3, delayMs = 50 }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      await new Promise((r) => setTimeout(r, delayMs));
      if (token !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: steps },
        });
    }
    return text(`done after ${steps} steps`);
  },
);
server.registerTool(
  'add_tool',
  { description: 'Register late_tool (the server then sends tools/list_changed)' },
  async () => {
    server.registerTool('late_tool', { description: 'A tool that arrived later' }, async () => text('late'));
    return text('added late_tool');
  },
);
for (let i = 0; i < many; i++) {
  server.registerTool(`bulk_${i}`, { description: `Bulk tool number ${i}` }, async () => text(`bulk ${i}`));
}

if (stderrLine) process.stderr.write(`${stderrLine}\n`);
if (slow > 0) await new Promise((r) => setTimeout(r, slow));
await server.connect(new StdioServerTransport());
