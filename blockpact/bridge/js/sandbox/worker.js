'use strict';
// Worker entry: applies SES lockdown to this thread only, then runs programs
// on request from the main thread (runner.js): one at a time, or, in a packed worker
// (worker-pack.js, trusted programs), several at once, each in its own Compartment.

const { parentPort, workerData } = require('node:worker_threads');
// Modules are loaded before lockdown (they may touch intrinsics while loading),
// except minecraft-data, loaded on first use (see mcdata.js).
// Resizable and growable buffers reserve their maximum and grow outside the ArrayBuffer accounting the
// memory checks rely on (a program grew the process past 2.5 GB): growing one is refused, naming the limit (a
// ValueLimitError: a program that does not catch it is reported with the limit, kind "limit").
const { encode, decode, ValueLimitError, utf8Bytes } = require('./codec');
for (const [proto, name] of [[ArrayBuffer.prototype, 'resize'], [globalThis.SharedArrayBuffer?.prototype, 'grow']]) {
  if (proto && typeof proto[name] === 'function') {
    Object.defineProperty(proto, name, {
      value: { [name]() { throw new ValueLimitError(`ArrayBuffer ${name}: resizable buffers are not allowed in programs (limit memoryMb)`, 'memoryMb'); } }[name],
      writable: true, configurable: true, enumerable: false,
    });
  }
}
require('ses');
const { Vec3 } = require('vec3');
const { syncRequester } = require('./sync-channel');
const { buildFacade } = require('./facade');
const { makeLogger } = require('./logger');
const { mcDataLoader } = require('./mcdata');
const { execute, checkPrelude } = require('./execute');
const { describeError } = require('./errors');
const { plainText } = require('./plain-text');
const { threadId } = require('./thread-cpu');
const { chargingClock } = require('./pack-clock');

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
const runs = new Map(); // run id -> { id, slot, finished, logCount, ... }: one, or several in a packed worker
let current = null; // the run whose code the worker entered last (its CPU time, unhandled rejections)
// In a packed worker, each program's computing time is charged to its slot (pack-clock.js).
const packClock = workerData.pack ? chargingClock(workerData.pack.clock) : null;

function enter(run) {
  current = run;
  packClock?.enter(run?.slot ?? -1);
}

function emitLog(run, line) {
  if (run.finished || run.logCount > config.maxLogLines) return;
  run.logCount += 1;
  const text = run.logCount > config.maxLogLines ? '[further log lines dropped]'
    : plainText(line.length > config.maxLineLength ? `${line.slice(0, config.maxLineLength)}…` : line);
  parentPort.postMessage({ t: 'log', run: run.id, line: text });
}

// One call's arguments may hold maxArgumentBytes of JSON: the call is refused here, before it leaves the
// sandbox, so an oversized argument never reaches the host (the bridge to Python broke on ~600 KB with a second
// player). The walk itself stops at maxMessageBytes, so a huge value costs no more than that to measure.
function encodeArgs(label, args) {
  if (!Array.isArray(args)) throw new TypeError(`${label}: arguments must be an array`);
  const max = config.maxArgumentBytes;
  const tooLarge = (size) => new ValueLimitError(
    `${label}: argument too large: ${size} bytes, limit ${max} (limit maxArgumentBytes)`, 'maxArgumentBytes');
  let payload;
  try {
    payload = encode(args, () => {
      throw new TypeError(`${label}: functions cannot be sent to the game (use names, ids or positions)`);
    }, { what: `${label}: arguments`, maxBytes: Math.max(max, config.maxMessageBytes), deep: 'throw' });
  } catch (err) {
    if (err instanceof ValueLimitError && err.limit === 'maxMessageBytes') throw tooLarge(`over ${Math.max(max, config.maxMessageBytes)}`);
    throw err;
  }
  const size = utf8Bytes(JSON.stringify(payload));
  if (size > max) throw tooLarge(size);
  return payload;
}

// A limit the program broke: the main thread ends the run with this message (and kills the
// worker); the program also gets it thrown, so it stops where it broke the limit.
function breakLimit(run, limit, message) {
  if (!run.finished && !run.limitBroken) {
    run.limitBroken = true;
    parentPort.postMessage({ t: 'limit', run: run.id, limit, error: message });
  }
  return new RangeError(message);
}

// A value refused for its size or depth (codec.js) is thrown to the program, which may catch it; the run is
// still reported with the limit it broke (the first refusal), so catching refusals cannot hide them. The main
// thread is told at once: a run it ends itself (its budget, a cancel) never sends this worker's result.
function noteRefusal(run, err) {
  if (err instanceof ValueLimitError && run.refused == null) {
    run.refused = { limit: err.limit, ...describeError(err, getStackString) };
    if (!run.finished) parentPort.postMessage({ t: 'refused', run: run.id, ...run.refused });
  }
  return err;
}

// The run's result, with the first refusal it caught if it did not end on a limit of its own.
function withRefusal(run, result) {
  if (run.refused == null || result.kind === 'limit') return result;
  const { limit, error, stack, errorLine } = run.refused;
  return { success: false, error, stack, errorLine, returnJson: null, kind: 'limit', limit };
}

function callHost(run, name, args) {
  if (run.finished || run.returned) return Promise.reject(new Error(`${name}: the program has already returned`));
  if (name !== 'chat' && run.pending >= config.maxPendingCalls) { // chat has its own count, and cannot be awaited
    // Thrown, not rejected: a loop starting calls without await stops here.
    throw breakLimit(run, 'maxPendingCalls', `too many primitive calls in flight: ${run.pending} started and not finished `
      + `(limit maxPendingCalls = ${config.maxPendingCalls}; await each call)`);
  }
  const site = new Error(); // captured now, so a failure points at the program's call
  let payload;
  try {
    payload = encodeArgs(name, args);
  } catch (err) {
    return Promise.reject(noteRefusal(run, err));
  }
  run.pending += 1;
  return new Promise((resolve, reject) => {
    const id = nextCallId++;
    pendingCalls.set(id, { run, resolve, reject, site });
    parentPort.postMessage({ t: 'call', run: run.id, id, name, args: payload });
  });
}

// bot.chat: lines cut to maxChatLength, at most maxChatMessages per program and, where a rate is
// configured (live servers kick spammers), chatBurst lines at once then chatPerSecond.
function chatLimit(run) {
  run.chats += 1;
  if (run.chats > config.maxChatMessages) {
    return breakLimit(run, 'maxChatMessages', `too many chat messages: over ${config.maxChatMessages} in one program (limit maxChatMessages)`);
  }
  if (config.chatPerSecond > 0) {
    const now = performance.now();
    run.chatTokens = Math.min(config.chatBurst, run.chatTokens + ((now - run.chatAt) / 1000) * config.chatPerSecond);
    run.chatAt = now;
    if (run.chatTokens < 1) {
      return breakLimit(run, 'chatPerSecond', `chat too fast: over ${config.chatBurst} messages at once or `
        + `${config.chatPerSecond} per second (limit chatPerSecond)`);
    }
    run.chatTokens -= 1;
  }
  return null;
}

function queryHost(run, path, args) {
  if (run.finished || run.returned) throw new Error(`bot.${path}: the program has already returned`);
  let payload;
  try {
    payload = encodeArgs(`bot.${path}`, args);
  } catch (err) {
    throw noteRefusal(run, err);
  }
  const reply = request({ run: run.id, name: path, args: payload });
  if (!reply.ok) throw new Error(`bot.${path}: ${reply.error}`);
  return decode(reply.value, makeVec3);
}

function environment(run) {
  const { log, console } = makeLogger((line) => emitLog(run, line));
  const chat = (message) => {
    const limited = chatLimit(run);
    if (limited) throw limited;
    let text = plainText(String(message));
    if (text.trimStart().startsWith('/')) {
      throw breakLimit(run, 'serverCommands', `bot.chat: ${JSON.stringify(text.slice(0, 40))} is a server command, and programs `
        + 'may not run server commands (limit serverCommands)');
    }
    if (text.length > config.maxChatLength) text = `${text.slice(0, config.maxChatLength - 1)}…`;
    callHost(run, 'chat', [text])
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
    returned: () => { run.returned = true; },
    getStackString,
  };
}

async function runProgram(message) {
  const run = {
    id: message.run, slot: message.slot ?? -1, finished: false, logCount: 0, pending: 0, chats: 0, limitBroken: false,
    ran: true, refused: null, returned: false, chatTokens: config.chatBurst, chatAt: performance.now(),
  };
  runs.set(run.id, run);
  enter(run);
  checkStallSoon();
  const result = withRefusal(run, await execute(message, environment(run), config));
  run.finished = true;
  forget(run);
  parentPort.postMessage({ t: 'done', run: run.id, result });
}

// A program with no call pending can never go on: its compartment has no timers or events, so
// only a host answer can wake it. setImmediate runs after every message handler and the microtasks
// it started (the program's continuations), so if the program is still running then with nothing
// pending, it awaits something that never settles (e.g. `await new Promise(() => {})`).
function checkStallSoon() {
  if (config.stallCheck) setImmediate(checkStall);
}

function checkStall() {
  for (const run of runs.values()) {
    if (!run.finished && run.pending === 0 && !run.limitBroken) {
      run.limitBroken = true;
      parentPort.postMessage({ t: 'limit', run: run.id, limit: 'stalled',
        error: 'stalled: the program awaits something that can never happen (no primitive pending, nothing else to run)' });
    }
  }
}

// Memory outside the heap cap (ArrayBuffers, typed arrays) is measured here; the main thread
// watches the process too, for a worker too busy to measure itself. Only a program that ran since the last
// check can hold more: its code runs when it starts and when a host call settles (`ran`), never otherwise (its
// compartment has no timers or events). A program waiting on a walk is not measured again: with 64 programs per
// Node process, measuring every worker every 25 ms (process.memoryUsage) took about a third of a core.
// In a packed worker the memory is the programs' together: those that ran since the last check are charged.
function checkMemory() {
  if (runs.size === 0) return;
  enter(null);
  const ran = [...runs.values()].filter((run) => run.ran);
  if (ran.length > 0) measureMemory(ran);
  parentPort.postMessage({ t: 'alive' });
}

function measureMemory(ran) {
  for (const run of ran) run.ran = false;
  const { arrayBuffers, external } = process.memoryUsage();
  const outside = Math.max(arrayBuffers, external);
  if (outside <= config.memoryMb * 1_048_576) return;
  for (const run of ran) {
    if (run.limitBroken) continue;
    run.limitBroken = true;
    parentPort.postMessage({ t: 'limit', run: run.id, limit: 'memoryMb',
      error: `out of memory: the program holds over ${config.memoryMb} MB of ArrayBuffer memory (limit memoryMb)` });
  }
}
setInterval(checkMemory, config.memoryCheckMs);

function settleCall({ id, ok, value, error }) {
  const call = pendingCalls.get(id);
  if (!call) return;
  pendingCalls.delete(id);
  enter(call.run);
  call.run.pending -= 1;
  call.run.ran = true; // its continuation runs now
  checkStallSoon();
  if (ok) {
    call.resolve(decode(value, makeVec3));
  } else {
    Object.defineProperty(call.site, 'message', { value: error, writable: true, configurable: true });
    call.reject(call.site);
  }
}

// A primitive started without await that later fails must not kill the worker.
process.on('unhandledRejection', (reason) => {
  if (current && !current.finished) emitLog(current, `[unhandled rejection] ${describeError(reason, getStackString).error}`);
});

// The main thread cancelled this run and keeps the worker (runner.js #abandon): the program is
// dropped where it waits. Its pending calls are forgotten, never settled, and its compartment
// has no timers or events, so nothing can resume it; its continuations become garbage. A program
// still computing gets here only when it yields, too late for the main thread's ping: that
// worker is terminated instead.
function abandon(runId) {
  const run = runs.get(runId);
  if (!run) return;
  run.finished = true;
  forget(run);
}

function forget(run) {
  runs.delete(run.id);
  if (current === run) enter(null);
  for (const [id, call] of pendingCalls) if (call.run === run) pendingCalls.delete(id);
}

parentPort.on('message', (message) => {
  if (message.t === 'run') runProgram(message);
  else if (message.t === 'reply') settleCall(message);
  else if (message.t === 'abandon') abandon(message.run);
  else if (message.t === 'ping') {
    enter(null);
    parentPort.postMessage({ t: 'pong' });
  }
});

try {
  if (config.prelude) checkPrelude(config.prelude);
  parentPort.postMessage({ t: 'ready', threadId: threadId() }); // for its CPU time (sandbox-worker.js)
} catch (err) {
  parentPort.postMessage({ t: 'failed', error: `prelude: ${err.message}` });
}
