// Preloaded (`node --import`) into a CLI subprocess by the memory tests: when the process
// exits, write its peak resident set size (ru_maxrss, in KiB) to the file named by
// MINICODE_TEST_PEAK_RSS_FILE. The CLI itself runs unchanged.
import fs from 'node:fs';

const target = process.env.MINICODE_TEST_PEAK_RSS_FILE;
if (target) process.on('exit', () => fs.writeFileSync(target, String(process.resourceUsage().maxRSS)));
