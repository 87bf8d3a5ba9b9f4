'use strict';
// Entry point for JSPyBridge (require by absolute path) and Node callers.

const { Runner } = require('./runner');
const { poolStats, drainPool } = require('./worker-pool');
const { VOYAGER_PRIMITIVES, DEFAULT_QUERIES } = require('./config');

// config: { mcVersion, primitives?, queries?, botCalls?, hostCalls?, prelude?, budgetClock?, memoryMb?, defaultBudgetMs?, ... }
// (see README.md and config.js for the meaning and defaults)
// host:   { call(name, args), query(name, args), stop() }, each may return a promise.
function createRunner(config, host) {
  return new Runner(config, host);
}

module.exports = { createRunner, poolStats, drainPool, VOYAGER_PRIMITIVES, DEFAULT_QUERIES };
