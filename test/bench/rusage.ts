// Preloaded into a measured child (`node --import <this> …`): at exit, writes what the process used
// (process.resourceUsage(), all its threads) to the file named by POSTUREOPS_BENCH_RUSAGE.

import { writeFileSync } from 'node:fs';

const out = process.env.POSTUREOPS_BENCH_RUSAGE;
if (out) {
  process.on('exit', (code) => {
    const u = process.resourceUsage();
    writeFileSync(out, JSON.stringify({ code, userMs: u.userCPUTime / 1000, systemMs: u.systemCPUTime / 1000, maxRssKb: u.maxRSS }));
  });
}
