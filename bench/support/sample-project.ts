/** A scratch copy of the demo's sample project for benchmarks that run `minicode exec` as a subprocess. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh project copy and a minimal environment (no colour, its own HOME and MINICODE_HOME). */
export interface SampleProject {
  /** The scratch directory that holds the project, HOME and MINICODE_HOME. */
  scratch: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** Copy `<root>/demo/sample-project` into a new directory named after `prefix` under `parent` (default: the OS temp dir). */
export function sampleProject(root: string, prefix: string, parent = os.tmpdir()): SampleProject {
  fs.mkdirSync(parent, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(parent, prefix));
  const cwd = path.join(scratch, 'project');
  fs.cpSync(path.join(root, 'demo/sample-project'), cwd, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: scratch,
    MINICODE_HOME: path.join(scratch, 'home'),
    NO_COLOR: '1',
  };
  return { scratch, cwd, env };
}
