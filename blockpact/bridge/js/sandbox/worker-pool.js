'use strict';
// Idle sandbox workers kept for reuse, per configuration. Starting a worker costs an SES
// lockdown and module loading (hundreds of ms of CPU), more than most programs; a simulated
// episode opens a runner per bot, so a sweep would pay it for every bot of every unit. A runner
// that closes with a clean worker parks it here; the next runner with the same configuration
// adopts it (and pings it first). A worker is only ever parked between programs, and every
// program runs in a fresh Compartment of a locked-down realm, so what one owner's programs
// did is not visible to the next owner's (the same guarantee as between two runs of one runner).
// A parked worker is ended after `poolIdleMs` without an owner: Node counts a worker whose
// output is read as a live handle even when unref'd, so the pool is what lets a process exit.

// Enough for every bot of one episode of the largest built-in world (cleanup_mp: 7 players), so the next
// episode (a contract search plays several in a row) starts none: with 4, each paid 3 worker starts.
const MAX_PARKED_PER_CONFIG = 8;

const parked = new Map(); // config key -> [{ worker: SandboxWorker, expiry: Timeout }]

function configKey(config) {
  return JSON.stringify(config);
}

// Keeps `worker` for the next runner with this configuration, or ends it (pool full, or dirty).
async function park(key, worker, idleMs) {
  const idle = parked.get(key) ?? [];
  if (worker.dirty || idle.length >= MAX_PARKED_PER_CONFIG) {
    await worker.terminate();
    return;
  }
  const entry = { worker, expiry: null };
  worker.park(() => forget(key, entry));
  entry.expiry = setTimeout(() => {
    forget(key, entry);
    worker.terminate();
  }, idleMs);
  entry.expiry.unref();
  idle.push(entry);
  parked.set(key, idle);
}

// A parked worker for this configuration, now owned by `handlers`' runner; null if none.
function take(key, handlers) {
  const entry = parked.get(key)?.at(-1);
  if (!entry) return null;
  forget(key, entry);
  entry.worker.adopt(handlers);
  return entry.worker;
}

function forget(key, entry) {
  clearTimeout(entry.expiry);
  const idle = parked.get(key);
  const at = idle?.indexOf(entry) ?? -1;
  if (at >= 0) idle.splice(at, 1);
  if (idle?.length === 0) parked.delete(key);
}

// How many workers are parked (for tests and benches).
function poolStats() {
  let idle = 0;
  for (const workers of parked.values()) idle += workers.length;
  return { parked: idle, configs: parked.size };
}

// Ends every parked worker: for a caller that must leave no thread behind (tests).
async function drainPool() {
  const all = [...parked.values()].flat();
  parked.clear();
  await Promise.all(all.map((entry) => {
    clearTimeout(entry.expiry);
    return entry.worker.terminate();
  }));
}

module.exports = { configKey, park, take, poolStats, drainPool };
