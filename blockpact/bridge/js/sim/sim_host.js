'use strict';
// The simulator body's side of the sandbox runner: a runner host whose primitive calls and bot
// queries become requests to Python (blockpact/bridge/sim/body.py), where AgentAPI runs them on the
// simulated clock. Python is never awaited by a long call: it starts a run and returns at once, then
// answers requests with settle() and learns that a run ended through its `done` callback.
//
// Values cross as JSON with Vec3 tagged as {"$vec3": [x, y, z]} (the sandbox codec's form).

const { createRunner } = require('../sandbox/index.js');
const { encode, decode } = require('../sandbox/codec.js');
const { Vec3 } = require('vec3');

const makeVec3 = (x, y, z) => new Vec3(x, y, z);
const dropFunction = () => undefined;
const toJson = (value) => JSON.stringify(encode(value ?? null, dropFunction));
// A call's text arguments cut one character past Python's limit (MAX_ARG_STRING): Python still refuses
// them with its own message, but a program retrying a megabyte-long name no longer sends a megabyte
// through the bridge per call (seconds of host time that no compute budget counts).
const clipped = (value, clipAt) => JSON.stringify(encode(value ?? null, dropFunction),
  (key, item) => (typeof item === 'string' && item.length > clipAt ? item.slice(0, clipAt) : item));

// python: { request(callId, kind, name, argsJson) -> (answerJson for queries), done(runId, resultJson) }
class SimHost {
  #runner;
  #packedRunner = null; // for trusted programs (scripted players'): a slot of a shared worker, made on first use
  #config;
  #host;
  #python;
  #pending = new Map(); // callId -> { resolve, reject }
  #nextCall = 1;
  #clipAt;

  constructor(config, python, clipAt) {
    this.#python = python;
    this.#clipAt = clipAt;
    this.#config = config;
    this.#host = {
      call: (name, args) => this.#call('call', name, args),
      query: (name, args) => this.#query(name, args),
      stop: () => { this.#python.request(0, 'stop', '', '[]').catch(() => {}); },
    };
    this.#runner = createRunner(config, this.#host);
  }

  // Trusted programs share a sandbox worker with other bodies' (worker-pack.js); others get their own.
  #runnerFor(trusted) {
    if (!trusted) return this.#runner;
    this.#packedRunner ??= createRunner({ ...this.#config, packed: true }, this.#host);
    return this.#packedRunner;
  }

  // The body's active run is in one of its two runners: the charge goes to that one.
  #charge(ms) {
    return this.#runner.charge(ms) || (this.#packedRunner?.charge(ms) ?? false);
  }

  #call(kind, name, args) {
    const id = this.#nextCall++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#python.request(id, kind, name, clipped(args, this.#clipAt)).catch((err) => this.settle(id, false, err.message));
    });
  }

  async #query(name, args) {
    const reply = JSON.parse(await this.#python.request(0, 'query', name, toJson(args)));
    this.#charge(reply.costMs); // Python's computing for the answer (a search of the whole world)
    if (!reply.ok) throw new Error(reply.error);
    return decode(reply.value, makeVec3);
  }

  // Python's answer to a call: ok -> JSON value, else an error message; costMs: Python's computing for it
  // (e.g. searching for a path that does not exist), charged to the running program's budget; timePassed:
  // simulated time has passed since the budget last started, so it starts again (it bounds one instant's computing).
  settle(callId, ok, payload, costMs = 0, timePassed = false) {
    const call = this.#pending.get(callId);
    if (!call) return false;
    this.#pending.delete(callId);
    this.#charge(costMs);
    if (timePassed) this.#runner.restartBudget() || this.#packedRunner?.restartBudget();
    if (ok) call.resolve(decode(JSON.parse(payload), makeVec3));
    else call.reject(new Error(payload));
    return true;
  }

  // Starts a run and returns at once; Python hears the result through done(runId, resultJson).
  // options: the runner's run() options, and `trusted` (the program is the project's own: it may be packed).
  start(runId, source, optionsJson) {
    const { trusted = false, ...options } = JSON.parse(optionsJson);
    const started = performance.now();
    this.#runnerFor(trusted).run(source, { ...options, runId })
      .then((result) => ({ ...result, wallMs: performance.now() - started }))
      // e.g. its sandbox worker did not start in time on a loaded machine: the sandbox's failure, not the program's
      .catch((err) => ({ success: false, error: `runner failed: ${err.message}`, kind: 'sandbox', stack: null,
        errorLine: null, chat: [], logs: [], returnValue: null, durationMs: 0, wallMs: performance.now() - started }))
      .then((result) => this.#python.done(runId, JSON.stringify(result)))
      .catch(() => {}); // Python is gone: nothing left to tell
    return true;
  }

  // Python asks this when a run has been silent for long: a wedged main thread cannot answer.
  ping() {
    return true;
  }

  cancel(runId, reason) {
    return this.#runner.cancel(runId, reason) || (this.#packedRunner?.cancel(runId, reason) ?? false);
  }

  async close() {
    for (const [id] of this.#pending) this.settle(id, false, 'body closed');
    await Promise.all([this.#runner.close(), this.#packedRunner?.close()]);
    return true;
  }
}

// Hosts by number: Python holds a host's number and calls the functions below with it, fetched once per
// runtime (blockpact/bridge/sim/node_host.py); every method of a host object would be one more bridge
// round trip per body to fetch.
const hosts = new Map();
let hostsMade = 0;

// request and done are Python callables (JSPyBridge proxies: calling one returns a promise); text
// arguments of calls longer than maxArgString characters are cut to maxArgString + 1 on the way.
// Returns the new host's number.
function createSimHost(configJson, request, done, maxArgString) {
  const python = {
    request: (...args) => Promise.resolve().then(() => request(...args)),
    done: (...args) => Promise.resolve().then(() => done(...args)),
  };
  const id = ++hostsMade;
  hosts.set(id, new SimHost(JSON.parse(configJson), python, maxArgString + 1));
  return id;
}

function host(id) {
  const found = hosts.get(id);
  if (!found) throw new Error(`no simulator host ${id} (closed?)`);
  return found;
}

module.exports = {
  createSimHost,
  start: (id, runId, source, optionsJson) => host(id).start(runId, source, optionsJson),
  settle: (id, callId, ok, payload, costMs, timePassed) => hosts.get(id)?.settle(callId, ok, payload, costMs, timePassed) ?? false, // a late answer to a closed host
  cancel: (id, runId, reason) => host(id).cancel(runId, reason),
  ping: (id) => host(id).ping(),
  close: async (id) => {
    const closing = hosts.get(id);
    hosts.delete(id);
    return closing ? closing.close() : true;
  },
};
