// Preloaded into each `bcs run` of the benchmark (node --require): says the process's own CPU time as it
// exits, which the benchmark reads from stderr. Its children (Chromium, in the sandbox) are not counted.
process.on('exit', () => {
  const used = process.cpuUsage();
  require('node:fs').writeSync(2, `CPU_AT_EXIT_MS ${Math.round((used.user + used.system) / 1000)}\n`);
});
