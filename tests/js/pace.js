'use strict';
// How busy the machine is now, for the few Node tests that bound a wait in wall seconds (as
// tests/harness/pace.py does for pytest): a short loop's wall time over the CPU time it got is
// 1 on an idle core and about 2 when four busy processes share two cores. `scaled(seconds)`
// stretches a bound chosen on an idle machine by that factor (at most MAX_SLOWDOWN).

const MAX_SLOWDOWN = 4;
const SAMPLE_MS = 30;

function slowdown() {
  const samples = [];
  for (let i = 0; i < 3; i += 1) {
    const wall0 = performance.now();
    const cpu0 = process.cpuUsage();
    while (performance.now() - wall0 < SAMPLE_MS) Math.sqrt(Math.random());
    const cpu = process.cpuUsage(cpu0);
    samples.push((performance.now() - wall0) / Math.max((cpu.user + cpu.system) / 1000, 1e-3));
  }
  samples.sort((a, b) => a - b);
  return Math.min(MAX_SLOWDOWN, Math.max(1, samples[1]));
}

const scaled = (seconds) => seconds * slowdown();

module.exports = { scaled, slowdown };
