// Preloaded into a spawned audit-scan (node --import) by tests that compare peak memory: prints the process's
// peak RSS on stderr as it exits. Test-only; the product never loads it.
process.on('exit', () => {
  process.stderr.write(`\nmaxrss-kb=${process.resourceUsage().maxRSS}\n`);
});
