/** Appended to the id of a call the sandbox refused to name its rerun outside the sandbox (escalation.ts). */
export const RERUN_SUFFIX = '.unsandboxed';
