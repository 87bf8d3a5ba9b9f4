// Sandbox runner costs: worker start, async primitive round trip, synchronous
// bot query round trip. Prints one JSON line. Run: node bench/sandbox_rpc.mjs
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { createRunner } = require('../blockpact/bridge/js/sandbox/index.js');

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

async function workerStartMs() {
  const samples = [];
  for (let i = 0; i < STARTS; i += 1) {
    const runner = createRunner(config, timingHost());
    const t0 = performance.now();
    const result = await runner.run('async function main(bot) { return 1; }', { budgetMs: 10000 });
    samples.push(performance.now() - t0 - result.durationMs);
    await runner.close();
  }
  return samples;
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

const starts = await workerStartMs();
const asyncRpc = await roundTrips('s += await ping(bot);');
const syncQuery = await roundTrips('s += bot.health;');
console.log(JSON.stringify({
  node: process.version,
  worker_start_ms_median: round(percentile(starts, 50)),
  async_rpc_ms_p50: round(percentile(asyncRpc, 50)),
  async_rpc_ms_p99: round(percentile(asyncRpc, 99)),
  sync_query_ms_p50: round(percentile(syncQuery, 50)),
  sync_query_ms_p99: round(percentile(syncQuery, 99)),
  samples: { starts: starts.length, async_rpc: asyncRpc.length, sync_query: syncQuery.length },
}));
