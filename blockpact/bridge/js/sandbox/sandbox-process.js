'use strict';
// Main-thread handle on a sandbox worker that lives in a child process of its own (config.isolation
// "process"), with the same face as SandboxWorker (start, ping, park/adopt, computingMs, terminate), so
// the runner and the pool use either. Why: a few V8 builtins run to their end however a worker thread is
// terminated (`Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1)`, normalize() of 400,000
// combining marks): in a thread they wedged the whole Node runtime, every bot of it. A process is ended
// with SIGKILL at its budget, whatever it runs; the runtime and the other programs go on. The child
// (process-host.js) holds an ordinary sandbox worker and relays messages and synchronous queries.

const path = require('node:path');
const { fork } = require('node:child_process');
const { threadCpuMs } = require('./thread-cpu');

const HOST_FILE = path.join(__dirname, 'process-host.js');

class SandboxProcess {
  // handlers: as SandboxWorker.start's
  static start(config, handlers) {
    const child = fork(HOST_FILE, [], {
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'], // V8's own messages (e.g. an out-of-memory report) are dropped
      serialization: 'advanced',
      execArgv: [],
    });
    const handle = new SandboxProcess(child, { handlers });
    return new Promise((resolve, reject) => {
      const fail = (error) => {
        clearTimeout(timer);
        child.off('exit', onExit);
        child.off('message', onBoot);
        handle.terminate().finally(() => reject(error));
      };
      const timer = setTimeout(
        () => fail(new Error(`sandbox process did not start within ${config.startTimeoutMs} ms (limit startTimeoutMs)`)),
        config.startTimeoutMs);
      const onExit = (code, signal) => fail(new Error(`sandbox process exited during start (${signal ?? `code ${code}`})`));
      const onBoot = (msg) => {
        if (msg.k !== 'ready' && msg.k !== 'failed') return;
        child.off('message', onBoot);
        child.off('exit', onExit);
        if (msg.k === 'failed') return fail(new Error(msg.error));
        clearTimeout(timer);
        if (msg.threadId != null) handle.#cpuMs = threadCpuMs(msg.threadId, child.pid);
        handle.#listen();
        resolve(handle);
      };
      child.once('exit', onExit);
      child.on('message', onBoot);
      child.send({ k: 'start', config });
    });
  }

  #child;
  #route;
  #exited;
  #cpuMs = null;
  #cpuAtExit = 0;
  #outOfMemory = false;
  #pongs = new Map(); // ping id -> resolve(ok)
  #nextPing = 1;
  #queryAskedAt = 0; // performance.now() of the query the worker waits for (0: none)
  #startedAt = performance.now();
  dirty = false;

  constructor(child, route) {
    this.#child = child;
    this.#route = route;
    this.#exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    // A message to a child that has just been killed (a budget ran out while it waited for an answer) fails with
    // EPIPE; unheard, that 'error' would end the whole runtime and every program in it. The child's exit reports
    // what happened to its run.
    child.on('error', () => {});
  }

  // Sends to the child if it is still there; a child gone meanwhile is no error here (its exit says so).
  #send(message) {
    if (this.#child.connected) this.#child.send(message, () => {}); // a callback takes the error, not an 'error' event
  }

  #listen() {
    const route = this.#route;
    this.#child.on('message', (m) => {
      if (m.k === 'message') route.handlers.message(m.msg);
      else if (m.k === 'query') this.#answer(m);
      else if (m.k === 'pong') this.#pongs.get(m.id)?.(m.ok);
      else if (m.k === 'limit') route.handlers.limit(m.info);
      else if (m.k === 'exit') this.#outOfMemory = m.outOfMemory;
    });
    this.#exited.then(({ code, signal }) => {
      for (const resolve of this.#pongs.values()) resolve(false);
      route.handlers.exit({ code: code ?? signal, error: null });
    });
  }

  async #answer({ id, request }) {
    this.#queryAskedAt = performance.now();
    let reply;
    try {
      reply = { k: 'answer', id, ok: true, value: await this.#route.handlers.query(request) };
    } catch (err) {
      reply = { k: 'answer', id, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    this.#queryAskedAt = 0;
    this.#send(reply);
  }

  park(onExit) {
    this.#route.handlers = {
      message: () => { this.dirty = true; },
      query: () => { this.dirty = true; throw new Error('the program has already finished'); },
      exit: onExit,
      limit: () => { this.dirty = true; },
    };
    this.#child.unref();
    this.#child.channel?.unref();
  }

  adopt(handlers) {
    this.#route.handlers = handlers;
    this.#child.ref();
    this.#child.channel?.ref();
  }

  // As SandboxWorker.computingMs: the worker thread's CPU time (read from the child's /proc entry), plus the
  // wait for a query not yet answered. Without /proc: wall time since the process started (an over-count).
  get computingMs() {
    const waiting = this.#queryAskedAt > 0 ? performance.now() - this.#queryAskedAt : 0;
    if (this.#cpuMs) {
      const cpu = this.#cpuMs();
      if (cpu != null) this.#cpuAtExit = cpu;
      return this.#cpuAtExit + waiting;
    }
    return performance.now() - this.#startedAt;
  }

  set running(value) {
    this.#send({ k: 'running', value });
  }

  get outOfMemory() {
    return this.#outOfMemory;
  }

  post(message) {
    this.#send({ k: 'post', msg: message });
  }

  // The child's main thread asks its worker (it answers even while the worker is wedged); the child itself
  // gets a little longer, being one more hop away.
  ping(timeoutMs) {
    return new Promise((resolve) => {
      if (!this.#child.connected) return resolve(false);
      const id = this.#nextPing++;
      const timer = setTimeout(() => settle(false), timeoutMs + 250);
      const settle = (ok) => {
        clearTimeout(timer);
        this.#pongs.delete(id);
        resolve(ok);
      };
      this.#pongs.set(id, settle);
      this.#send({ k: 'ping', id, timeoutMs });
    });
  }

  // SIGKILL: a worker wedged in a builtin cannot hold up a signal to its process.
  async terminate() {
    this.#child.ref(); // a parked (unref'd) child's exit must still be waited for
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGKILL');
    await this.#exited;
  }
}

module.exports = { SandboxProcess };
