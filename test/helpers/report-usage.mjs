// Loaded with `node --import` into a CLI subprocess: prints its peak RSS and CPU time to stderr
// at exit, as one `minicode-usage {...}` line, for tests that bound a command's memory.
process.on('exit', () => {
  const u = process.resourceUsage();
  process.stderr.write(
    `\nminicode-usage ${JSON.stringify({ maxRssKb: u.maxRSS, cpuUs: u.userCPUTime + u.systemCPUTime })}\n`,
  );
});
