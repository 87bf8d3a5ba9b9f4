'use strict';
// The Node process's own memory, watched from the main thread. A worker's heap is capped by
// resourceLimits, and the worker measures its ArrayBuffer memory itself (worker.js), but a worker
// filling ArrayBuffers in a loop that never yields cannot measure anything: only the process's
// resident set shows it. Past `processMemoryMb`, the running workers that have not reported for a
// while (busy, so possibly the one allocating) are ended; if every worker is reporting, the one
// that reported the most memory is. One watcher per process, shared by all runners.

const workers = new Set(); // { lastAlive, outsideBytes, running, limitMb, checkMs, kill(reason) }
let timer = null;
let quietUntil = 0; // after ending a worker, its memory takes a moment to be returned

function rssMb() {
  return process.memoryUsage.rss() / 1_048_576;
}

function check() {
  const running = [...workers].filter((w) => w.running);
  if (running.length === 0) return;
  const limitMb = Math.min(...running.map((w) => w.limitMb));
  const used = rssMb();
  if (used <= limitMb) return;
  const now = performance.now();
  if (now < quietUntil) return;
  const busy = running.filter((w) => now - w.lastAlive > 3 * w.checkMs);
  const suspects = busy.length > 0 ? busy
    : [running.reduce((a, b) => (b.outsideBytes > a.outsideBytes ? b : a))];
  quietUntil = now + 500;
  for (const w of suspects) {
    w.kill(`out of memory: the Node process reached ${Math.round(used)} MB while this program ran `
      + `(limit processMemoryMb = ${limitMb})`);
  }
}

// entry: see `workers`; returns a function that stops watching it.
function watchWorker(entry) {
  workers.add(entry);
  if (timer === null) {
    timer = setInterval(check, entry.checkMs);
    timer.unref();
  }
  return () => {
    workers.delete(entry);
    if (workers.size === 0 && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  };
}

module.exports = { watchWorker, rssMb };
