'use strict';
// Entry point for JSPyBridge (require by absolute path) and Node callers.

const { Runner } = require('./runner');
const { poolStats, drainPool: drainIdle } = require('./worker-pool');
const { packStats, drainPacks } = require('./worker-pack');
const { VOYAGER_PRIMITIVES, DEFAULT_QUERIES } = require('./config');

// config: { mcVersion, primitives?, queries?, botCalls?, hostCalls?, prelude?, budgetClock?, memoryMb?, defaultBudgetMs?,
//           packed? (trusted programs only: share a worker, worker-pack.js), programsPerWorker?, ... }
// (see README.md and config.js for the meaning and defaults)
// host:   { call(name, args), query(name, args), stop() }, each may return a promise.
function createRunner(config, host) {
  return new Runner(config, host);
}

// Ends every idle worker, parked or packed: for callers that must leave no thread behind.
async function drainPool() {
  await Promise.all([drainIdle(), drainPacks()]);
}

module.exports = { createRunner, poolStats, packStats, drainPool, VOYAGER_PRIMITIVES, DEFAULT_QUERIES };
