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

/** Copy `<root>/demo/sample-project` into a new temporary directory named after `prefix`. */
export function sampleProject(root: string, prefix: string): SampleProject {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const cwd = path.join(scratch, 'project');
  fs.cpSync(path.join(root, 'demo/sample-project'), cwd, { recursive: true });
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch, MINICODE_HOME: path.join(scratch, 'home'), NO_COLOR: '1' };
  return { scratch, cwd, env };
}
