/**
 * The in-sandbox half of `sandbox.network.allow` under bubblewrap. The sandbox has a network
 * namespace of its own with only a loopback, so the command cannot reach minicode's proxy
 * (network-proxy.ts) over TCP; the proxy's unix socket is bound into the sandbox instead, and
 * this bridge, started by bwrap in front of the command, listens on the sandbox's own
 * 127.0.0.1 and relays each connection to that socket. It then starts the command with the
 * proxy variables pointing at itself and exits with the command's status.
 *
 * It is a `node -e` script rather than a file of the build: the node running minicode is
 * readable inside the sandbox wherever it is installed, while minicode's own files may sit
 * under a hidden path. Plain CommonJS, no imports of minicode.
 *
 * Hazards answered in the script:
 * - the port is chosen by the kernel (listen on 0) and the command starts only once the
 *   bridge listens, so its first connection cannot race the bridge;
 * - SIGTERM, SIGINT and SIGHUP sent to the bridge are passed to the command;
 * - a command killed by a signal exits the bridge with 128 + the signal number, as a shell
 *   reports it;
 * - relay socket errors end that one connection only;
 * - the command gets the bridge's fd 4 when it has one (the bash tool's report pipe), which a
 *   plain `stdio: 'inherit'` would not pass on.
 */

/** Where the proxy's socket appears inside the sandbox (on the sandbox's private `/tmp`). */
export const SANDBOX_PROXY_SOCKET = '/tmp/.minicode-proxy.sock';

/** Loopback names a command reaches directly, not through the proxy: the sandbox's own loopback. */
const NO_PROXY = 'localhost,127.0.0.1,::1';

const SCRIPT = `
const net = require('node:net');
const os = require('node:os');
const { spawn } = require('node:child_process');
const [socketPath, noProxy, report, command, ...args] = process.argv.slice(1);
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
});
server.listen(0, '127.0.0.1', () => {
  const url = 'http://127.0.0.1:' + server.address().port;
  const env = { ...process.env };
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY']) { env[name] = url; env[name.toLowerCase()] = url; }
  env.NO_PROXY = noProxy;
  env.no_proxy = noProxy;
  // The report pipe (launch.ts) is passed on as fd 4 only when there is one: else fd 4 may be one of node's own.
  const stdio = report === 'report' ? ['inherit', 'inherit', 'inherit', 'ignore', 4] : 'inherit';
  const child = spawn(command, args, { stdio, env });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => { process.stderr.write('minicode sandbox: ' + command + ': ' + error.message + '\\n'); process.exit(127); });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
});
`;

/**
 * The command line that runs `command args` behind the bridge, inside the sandbox: `node -e
 * SCRIPT -- ...`; `report`: the launch has a report pipe on fd 4, which the command gets too.
 */
export function bridgedCommand(nodePath: string, command: string, args: readonly string[], report = false): string[] {
  return [nodePath, '-e', SCRIPT, '--', SANDBOX_PROXY_SOCKET, NO_PROXY, report ? 'report' : '-', command, ...args];
}

/** The proxy variables for a command that reaches the proxy at `url` without a bridge (Seatbelt). */
export function proxyEnv(url: string): Record<string, string> {
  const env: Record<string, string> = { NO_PROXY, no_proxy: NO_PROXY };
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY']) {
    env[name] = url;
    env[name.toLowerCase()] = url;
  }
  return env;
}
