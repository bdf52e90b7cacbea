/**
 * The sandbox of a run as its set-up fills it once: flags over the config over
 * `workspace-write`, the backend found (or MINICODE_E_SANDBOX_UNAVAILABLE, exit 1, naming the
 * install command).
 */
import os from 'node:os';
import path from 'node:path';
import { userConfigPath, type LoadedConfig } from '../config-files.js';
import { requireSandboxBackend } from './backend.js';
import { sandboxSettingsOf, withMode, type SandboxMode, type SandboxSettings } from './settings.js';

/** Inputs of {@link resolveRunSandbox}. */
export interface RunSandboxInput {
  flagMode?: SandboxMode | undefined;
  allowNetwork?: boolean | undefined;
  loaded: LoadedConfig;
  env: NodeJS.ProcessEnv;
  cwd: string;
  storeDir: string;
}

/** The run's sandbox settings, its backend found. */
export function resolveRunSandbox(input: RunSandboxInput): SandboxSettings {
  const config = input.loaded.config.sandbox;
  const home = input.env.HOME || os.homedir();
  const settings = sandboxSettingsOf({
    flagMode: input.flagMode,
    allowNetwork: input.allowNetwork,
    config,
    home,
    minicodeHome: path.dirname(userConfigPath(input.env, home)),
    storeDir: input.storeDir,
    cwd: input.cwd,
  });
  const backend = requireSandboxBackend(settings, input.env);
  return backend ? { ...settings, backend } : settings;
}

/**
 * The run's settings under another mode (an ACP session's `sandbox` option): a sandboxed mode
 * chosen where the run had none needs a backend, found now (or MINICODE_E_SANDBOX_UNAVAILABLE).
 */
export function sandboxInMode(run: SandboxSettings, mode: SandboxMode, env: NodeJS.ProcessEnv): SandboxSettings {
  const next = withMode(run, mode);
  if (mode === 'off' || next.backend) return next;
  const backend = requireSandboxBackend(next, env);
  return backend ? { ...next, backend } : next;
}
