/**
 * A start-up timeline behind a switch: with `MINICODE_DEBUG_TIMELINE=1` the process notes named
 * moments (`mark`) and, at exit, prints them on stderr as milliseconds since the process
 * started (`performance.now()` counts from Node's own start), with the first stdout write among
 * them, and the process's CPU time (user + sys, every thread) at each: on a loaded machine the wall
 * clock says little, the CPU time still tells which step costs. Off, `mark` is one comparison: the
 * marks stay in the code for the next profile. The clock is the global `performance`, read only
 * when on: importing `node:perf_hooks` would load Node's performance modules into every run.
 */
const on = process.env.MINICODE_DEBUG_TIMELINE === '1';
const marks: [string, number, number][] = [];

/** Note that `label` happened now (a no-op unless `MINICODE_DEBUG_TIMELINE=1`). */
export function mark(label: string): void {
  if (!on) return;
  if (marks.length === 0) process.once('exit', print);
  const cpu = process.cpuUsage();
  marks.push([label, performance.now(), (cpu.user + cpu.system) / 1000]);
}

/** True when the timeline is on (for marks whose label costs something to build). */
export const timelineOn = on;

function print(): void {
  mark('exit');
  const lines = marks.map(
    ([label, at, cpu]) =>
      `minicode timeline: ${at.toFixed(1).padStart(7)} ms  cpu ${cpu.toFixed(1).padStart(6)} ms  ${label}\n`,
  );
  process.stderr.write(lines.join(''));
}
