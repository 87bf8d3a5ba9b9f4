// Sandbox runner costs: a new runner's first run on a fresh worker and on a pooled one (a worker a
// closed runner left, worker-pool.js), async primitive round trip, synchronous bot query round trip.
// Prints one JSON line. Run: node bench/sandbox_rpc.mjs
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { createRunner, drainPool } = require('../blockpact/bridge/js/sandbox/index.js');

const STARTS = 15;
const ROUND_TRIPS = 5000;
const config = { mcVersion: '1.20.4', primitives: ['ping'], queries: ['health'] };

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const round = (ms) => Math.round(ms * 1000) / 1000;

// The host timestamps each request; the program issues the next one as soon as
// the previous answer arrives, so consecutive gaps are full round trips.
function timingHost() {
  const stamps = [];
  return {
    stamps,
    async call() { stamps.push(performance.now()); return 1; },
    query() { stamps.push(performance.now()); return 20; },
    stop() {},
  };
}
const gaps = (stamps) => stamps.slice(1).map((t, i) => t - stamps[i]);

// A new runner's first run, less the program's own time: wall and main-thread CPU (the worker's
// lockdown runs on its own thread, so process CPU is measured too). `fresh`: no worker is parked.
async function firstRunCosts(fresh) {
  const wall = [];
  const cpu = [];
  for (let i = 0; i < STARTS; i += 1) {
    if (fresh) await drainPool();
    const runner = createRunner(config, timingHost());
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const result = await runner.run('async function main(bot) { return 1; }', { budgetMs: 10000 });
    wall.push(performance.now() - t0 - result.durationMs);
    const used = process.cpuUsage(cpu0);
    cpu.push((used.user + used.system) / 1000);
    await runner.close();
  }
  await drainPool();
  return { wall, cpu };
}

async function roundTrips(body) {
  const host = timingHost();
  const runner = createRunner(config, host);
  const result = await runner.run(
    `async function main(bot) { let s = 0; for (let i = 0; i < ${ROUND_TRIPS}; i++) { ${body} } return s; }`,
    { budgetMs: 60000 });
  await runner.close();
  if (!result.success) throw new Error(result.error);
  return gaps(host.stamps.slice(100)); // skip warm-up
}

const fresh = await firstRunCosts(true);
const pooled = await firstRunCosts(false);
const asyncRpc = await roundTrips('s += await ping(bot);');
const syncQuery = await roundTrips('s += bot.health;');
await drainPool();
console.log(JSON.stringify({
  node: process.version,
  worker_start_ms_median: round(percentile(fresh.wall, 50)),
  worker_start_cpu_ms_median: round(percentile(fresh.cpu, 50)),
  pooled_worker_ms_median: round(percentile(pooled.wall, 50)),
  pooled_worker_cpu_ms_median: round(percentile(pooled.cpu, 50)),
  async_rpc_ms_p50: round(percentile(asyncRpc, 50)),
  async_rpc_ms_p99: round(percentile(asyncRpc, 99)),
  sync_query_ms_p50: round(percentile(syncQuery, 50)),
  sync_query_ms_p99: round(percentile(syncQuery, 99)),
  samples: { starts: fresh.wall.length, pooled: pooled.wall.length, async_rpc: asyncRpc.length, sync_query: syncQuery.length },
}));
