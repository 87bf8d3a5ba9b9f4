'use strict';
// Main-thread handle on one sandbox worker: start (wait for lockdown to
// finish), liveness ping, termination, and a change of owner (park/adopt, for
// worker-pool.js: lockdown costs more CPU than a typical program). Knows nothing about runs.

const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { openSyncChannel } = require('./sync-channel');
const { watchWorker, alive } = require('./memory-watch');
const { threadCpuMs } = require('./thread-cpu');

const WORKER_FILE = path.join(__dirname, 'worker.js');

class SandboxWorker {
  // handlers: { message(msg), query(request) -> Promise<value>, exit({ code, error }), limit({ limit, error }) }
  // pack: { clock } for a packed worker (worker-pack.js): the shared cells its programs' CPU time is charged to.
  static start(config, handlers, pack = null) {
    const route = { handlers }; // whoever owns the worker now answers it
    const sync = openSyncChannel((request) => route.handlers.query(request));
    const worker = new Worker(WORKER_FILE, {
      workerData: { config, sync: sync.workerEnd, pack },
      transferList: [sync.workerEnd.port],
      resourceLimits: { maxOldGenerationSizeMb: config.memoryMb, maxYoungGenerationSizeMb: config.youngMemoryMb },
      // Programs cannot print (console is the run's log); what V8 itself prints (e.g. "Exception in
      // PromiseRejectCallback" from async infinite recursion) must not flood the process's stderr.
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    const handle = new SandboxWorker(worker, sync, config, route);
    return new Promise((resolve, reject) => {
      const fail = (error) => {
        clearTimeout(timer);
        worker.off('exit', onExit); // terminating it here is no second failure that would hide this one
        handle.terminate().finally(() => reject(error));
      };
      const timer = setTimeout(
        () => fail(new Error(`sandbox worker did not start within ${config.startTimeoutMs} ms (limit startTimeoutMs)`)),
        config.startTimeoutMs);
      const onExit = (code) => fail(new Error(`sandbox worker exited during start (code ${code})`));
      worker.once('exit', onExit);
      worker.on('message', function onBoot(msg) {
        if (msg.t !== 'ready' && msg.t !== 'failed') return;
        worker.off('message', onBoot);
        worker.off('exit', onExit);
        if (msg.t === 'failed') return fail(new Error(`sandbox worker failed to start: ${msg.error}`));
        clearTimeout(timer);
        handle.threadId = msg.threadId ?? null;
        if (msg.threadId != null) handle.#cpuMs = threadCpuMs(msg.threadId);
        handle.#listen();
        resolve(handle);
      });
    });
  }

  #worker;
  #sync;
  #route;
  #exited;
  #cpuMs = null; // () -> the worker thread's CPU milliseconds (null once exited), where the OS tells
  #lastError = null;
  #pongs = [];
  #watch;
  #unwatch = () => {};
  dirty = false; // set when the worker showed activity from a finished run
  threadId = null; // the worker thread's id in /proc/self/task (Linux), for its CPU time

  constructor(worker, sync, config, route) {
    this.#worker = worker;
    this.#sync = sync;
    this.#route = route;
    this.#watch = { lastAlive: 0, rssAtAlive: 0, running: false,
      growthMb: config.busyGrowthMb, checkMs: config.memoryCheckMs, kill: () => {} };
    // Errors thrown after lockdown arrive as empty objects; the exit code and
    // Node's own ERR_WORKER_OUT_OF_MEMORY are what we can rely on.
    worker.on('error', (err) => { this.#lastError = err; });
    this.#exited = new Promise((resolve) => worker.once('exit', resolve)).then((code) => {
      this.#sync.close();
      this.#unwatch();
      return code;
    });
  }

  #listen() {
    const route = this.#route;
    this.#watch.kill = (error) => route.handlers.limit({ limit: 'busyGrowthMb', error });
    this.#unwatch = watchWorker(this.#watch);
    this.#worker.on('message', (msg) => {
      if (msg.t === 'pong') this.#pongs.shift()?.();
      else if (msg.t === 'alive') alive(this.#watch);
      else route.handlers.message(msg);
    });
    this.#exited.then((code) => route.handlers.exit({ code, error: this.#lastError }));
  }

  // Between owners: nothing of the last owner's is reachable from the worker's messages, and
  // the idle worker does not keep the process alive. Any message now means something a
  // finished program started is still going: the worker is marked dirty (and not reused).
  park(onExit) {
    this.#route.handlers = {
      message: () => { this.dirty = true; },
      query: () => { this.dirty = true; throw new Error('the program has already finished'); },
      exit: onExit,
      limit: () => { this.dirty = true; },
    };
    this.#worker.unref();
    this.#sync.unref();
  }

  adopt(handlers) {
    this.#route.handlers = handlers;
    this.#worker.ref();
    this.#sync.ref();
  }

  // Milliseconds the worker has computed since it started, plus the wait for a query not yet answered
  // (budget.js): its thread's CPU time (thread-cpu.js), else its event loop's busy time (running JS,
  // or blocked in a synchronous query) less the time it waited for answered queries (the host's time,
  // which grows with the machine's load). Not meaningful once it has exited.
  get computingMs() {
    const cpu = this.#cpuMs?.();
    if (cpu != null) return cpu + this.#sync.waitingMs();
    return this.#worker.performance.eventLoopUtilization().active - this.#sync.waitedMs();
  }

  // The worker thread's own clock, as pack-clock.js reads it in the worker: CPU time, else busy time;
  // plus the wait for a query not yet answered (that counts as computing, see computingMs).
  get busyMs() {
    const cpu = this.#cpuMs?.();
    return (cpu ?? this.#worker.performance.eventLoopUtilization().active) + this.#sync.waitingMs();
  }

  // Whether a program runs in it now (the process memory watch only ends running workers).
  set running(value) {
    alive(this.#watch);
    this.#watch.running = value;
  }

  get outOfMemory() {
    return this.#lastError?.code === 'ERR_WORKER_OUT_OF_MEMORY';
  }

  post(message) {
    this.#worker.postMessage(message);
  }

  // Resolves false if the worker's event loop does not answer in time: a
  // finished program left a loop behind (e.g. `for (;;) await null`).
  ping(timeoutMs) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.#pongs.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
      this.post({ t: 'ping' });
    });
  }

  async terminate() {
    await this.#worker.terminate();
    await this.#exited;
  }
}

module.exports = { SandboxWorker };
