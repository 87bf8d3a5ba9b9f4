// What running untrusted programs in a sandbox process of their own costs against a worker thread
// (config.isolation "process" vs "thread"): the start of a fresh sandbox (the first program of a runner, no parked
// worker to adopt), a program on a reused sandbox, and a synchronous query's round trip.
//
//   node bench/sandbox_isolation.mjs [--starts 5] [--queries 2000]
//
// Prints one JSON object: per isolation, the median milliseconds of each.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const { createRunner, drainPool } = require(path.join(root, 'blockpact/bridge/js/sandbox'));
const { values } = parseArgs({ options: { starts: { type: 'string', default: '5' }, queries: { type: 'string', default: '2000' } } });
const starts = Number(values.starts);
const queries = Number(values.queries);
const host = { call: async () => null, query: () => 'stone', stop() {} };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(isolation) {
  const fresh = [];
  const reused = [];
  const query = [];
  for (let i = 0; i < starts; i += 1) {
    await drainPool();
    const runner = createRunner({ mcVersion: '1.20.4', budgetClock: 'compute', isolation }, host);
    let t = performance.now();
    await runner.run('async function main(bot) { return 1; }', { budgetMs: 5000 });
    fresh.push(performance.now() - t);
    t = performance.now();
    await runner.run('async function main(bot) { return 2; }', { budgetMs: 5000 });
    reused.push(performance.now() - t);
    t = performance.now();
    await runner.run(`async function main(bot) { for (let i = 0; i < ${queries}; i++) bot.blockAt(1); }`, { budgetMs: 60000 });
    query.push((performance.now() - t) / queries);
    await runner.close();
  }
  await drainPool();
  const round = (x) => Math.round(x * 1000) / 1000;
  return { fresh_start_ms: round(median(fresh)), reused_run_ms: round(median(reused)), query_round_trip_ms: round(median(query)) };
}

const out = {};
for (const isolation of ['thread', 'process']) out[isolation] = await measure(isolation);
console.log(JSON.stringify({ node: process.version, starts, queries, ...out }, null, 2));
