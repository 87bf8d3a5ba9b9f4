'use strict';
// The Node process's own memory, watched from the main thread. A worker's heap is capped by
// resourceLimits and the worker measures its ArrayBuffer memory itself (worker.js), but a worker
// filling ArrayBuffers in a loop that never yields cannot measure anything: only the process's
// resident set shows it. Each running worker reports every `checkMs` while its loop is free; one
// that has stopped reporting is computing without pause, and if the process grew by more than
// `growthMb` since its last report, it is ended. A limit on growth, not on the total, so a process
// holding many bots is not mistaken for a hostile one. One watcher per process, shared by all runners.
//
// What no watcher can stop: one native operation that fills gigabytes at once
// (`new Uint8Array(4e9).fill(1)`) runs to its end before the worker can be terminated; the memory
// is returned when the worker is ended right after.

const workers = new Set(); // { lastAlive, rssAtAlive, running, growthMb, checkMs, kill(reason) }
let timer = null;

// The resident set, read at most once per RSS_FRESH_MS: every running worker reports every checkMs (25 ms), and
// reading it (a /proc read) for each report took 14% of the main thread with 64 programs running (a CPU profile of
// `bench/live_scale.py --bots 128 --runtimes 2 --busy 0 --rounds 1 --budget 600` under node --cpu-prof). A baseline a few milliseconds old changes no verdict on a 256 MB growth.
const RSS_FRESH_MS = 5;
let rssRead = { at: -Infinity, mb: 0 };
function rssMb() {
  const now = performance.now();
  if (now - rssRead.at > RSS_FRESH_MS) rssRead = { at: now, mb: process.memoryUsage.rss() / 1_048_576 };
  return rssRead.mb;
}

function check() {
  const now = performance.now();
  let used = null;
  for (const w of workers) {
    if (!w.running || now - w.lastAlive <= 3 * w.checkMs) continue;
    used ??= rssMb();
    const grown = used - w.rssAtAlive;
    if (grown > w.growthMb) {
      w.running = false;
      w.kill(`out of memory: the Node process grew by ${Math.round(grown)} MB while this program computed without `
        + `pausing (limit busyGrowthMb = ${w.growthMb})`);
    }
  }
}

// A worker reported (its loop is free): growth is counted from here.
function alive(entry) {
  entry.lastAlive = performance.now();
  entry.rssAtAlive = rssMb();
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

module.exports = { watchWorker, alive };
