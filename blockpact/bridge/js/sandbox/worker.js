'use strict';
// Worker entry: applies SES lockdown to this thread only, then runs programs
// on request from the main thread (runner.js), one at a time.

const { parentPort, workerData } = require('node:worker_threads');
// Modules are loaded before lockdown (they may touch intrinsics while loading),
// except minecraft-data, loaded on first use (see mcdata.js).
require('ses');
const { Vec3 } = require('vec3');
const { encode, decode } = require('./codec');
const { syncRequester } = require('./sync-channel');
const { buildFacade } = require('./facade');
const { makeLogger } = require('./logger');
const { mcDataLoader } = require('./mcdata');
const { execute, checkPrelude } = require('./execute');
const { describeError } = require('./errors');

lockdown({
  errorTaming: 'safe', // error.stack is empty for programs; we read it via getStackString
  stackFiltering: 'verbose', // errors.js keeps the program's frames itself
  overrideTaming: 'severe', // lets ordinary code assign e.g. obj.toString despite frozen prototypes
  errorTrapping: 'none',
  unhandledRejectionTrapping: 'none',
});
const { getStackString } = globalThis;
harden(Vec3);

const config = workerData.config;
const makeVec3 = (x, y, z) => new Vec3(x, y, z);
const request = syncRequester(workerData.sync);
const loadMcData = mcDataLoader(config.mcVersion);
const pendingCalls = new Map(); // call id -> { run, resolve, reject, site }
let nextCallId = 1;
let current = null; // { id, finished, logCount }

function emitLog(run, line) {
  if (run.finished || run.logCount > config.maxLogLines) return;
  run.logCount += 1;
  const text = run.logCount > config.maxLogLines ? '[further log lines dropped]'
    : line.length > config.maxLineLength ? `${line.slice(0, config.maxLineLength)}…` : line;
  parentPort.postMessage({ t: 'log', run: run.id, line: text });
}

function encodeArgs(label, args) {
  if (!Array.isArray(args)) throw new TypeError(`${label}: arguments must be an array`);
  return encode(args, () => {
    throw new TypeError(`${label}: functions cannot be sent to the game (use names, ids or positions)`);
  });
}

function callHost(run, name, args) {
  if (run.finished) return Promise.reject(new Error(`${name}: the program has already finished`));
  const site = new Error(); // captured now, so a failure points at the program's call
  let payload;
  try {
    payload = encodeArgs(name, args);
  } catch (err) {
    return Promise.reject(err);
  }
  return new Promise((resolve, reject) => {
    const id = nextCallId++;
    pendingCalls.set(id, { run: run.id, resolve, reject, site });
    parentPort.postMessage({ t: 'call', run: run.id, id, name, args: payload });
  });
}

function queryHost(run, path, args) {
  if (run.finished) throw new Error(`bot.${path}: the program has already finished`);
  const reply = request({ run: run.id, name: path, args: encodeArgs(`bot.${path}`, args) });
  if (!reply.ok) throw new Error(`bot.${path}: ${reply.error}`);
  return decode(reply.value, makeVec3);
}

function environment(run) {
  const { log, console } = makeLogger((line) => emitLog(run, line));
  const chat = (message) => {
    callHost(run, 'chat', [String(message)])
      .catch((err) => emitLog(run, `[chat failed: ${err.message}]`));
  };
  return {
    globals() {
      const bot = buildFacade(config.botMembers, {
        query: (path, args) => queryHost(run, path, args),
        call: (name, args) => callHost(run, name, args),
        chat,
      });
      const globals = { bot, log, console, Vec3 };
      for (const name of config.primitives) {
        // Voyager signature: primitive(bot, ...args); the facade is implied.
        globals[name] = (_bot, ...args) => callHost(run, name, args);
      }
      return harden(globals);
    },
    install(scope) {
      Object.defineProperty(scope, 'mcData', { get: loadMcData, enumerable: true, configurable: true });
    },
    host: harden({
      call: (name, args) => callHost(run, name, args),
      query: (name, args) => queryHost(run, name, args),
    }),
    prelude: config.prelude,
    log: (line) => emitLog(run, line),
    getStackString,
  };
}

async function runProgram(message) {
  const run = { id: message.run, finished: false, logCount: 0 };
  current = run;
  const result = await execute(message, environment(run));
  run.finished = true;
  current = null;
  for (const [id, call] of pendingCalls) if (call.run === run.id) pendingCalls.delete(id);
  parentPort.postMessage({ t: 'done', run: run.id, result });
}

function settleCall({ id, ok, value, error }) {
  const call = pendingCalls.get(id);
  if (!call) return;
  pendingCalls.delete(id);
  if (ok) {
    call.resolve(decode(value, makeVec3));
  } else {
    Object.defineProperty(call.site, 'message', { value: error, writable: true, configurable: true });
    call.reject(call.site);
  }
}

// A primitive started without await that later fails must not kill the worker.
process.on('unhandledRejection', (reason) => {
  if (current) emitLog(current, `[unhandled rejection] ${describeError(reason, getStackString).error}`);
});

parentPort.on('message', (message) => {
  if (message.t === 'run') runProgram(message);
  else if (message.t === 'reply') settleCall(message);
  else if (message.t === 'ping') parentPort.postMessage({ t: 'pong' });
});

try {
  if (config.prelude) checkPrelude(config.prelude);
  parentPort.postMessage({ t: 'ready' });
} catch (err) {
  parentPort.postMessage({ t: 'failed', error: `prelude: ${err.message}` });
}
