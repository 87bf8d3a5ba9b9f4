'use strict';
// One runner per bot body: runs programs one at a time in its own sandbox
// worker, enforces the budget (budget.js), forwards primitive calls and bot queries to the
// host, and drops the worker whenever a run had to be killed (the next run
// starts a fresh one). A clean worker outlives its runner in worker-pool.js.

const { Vec3 } = require('vec3');
const { normalizeConfig, isIdentifier, ISOLATIONS } = require('./config');
const { SandboxWorker } = require('./sandbox-worker');
const { SandboxProcess } = require('./sandbox-process');
const pool = require('./worker-pool');
const packs = require('./worker-pack');
const { startBudget, computeTimer } = require('./budget');
const { encode, decode, utf8Bytes } = require('./codec');

const makeVec3 = (x, y, z) => new Vec3(x, y, z);
const dropFunction = () => undefined; // host data may carry methods; programs get the data
const errorText = (err) => (err instanceof Error ? err.message : String(err));
const STOP_TIMED_OUT = Symbol('stop timed out');
let runsStarted = 0; // numbers the runs the worker sees: unique in the process

// kind: why a run failed, for callers that sort failures ("program": the program's own error;
// "budget": a time budget ran out; "limit": it broke a resource limit, named in `limit`;
// "stalled": it awaited something that can never happen; "cancelled": the caller stopped it;
// "sandbox": the sandbox worker itself failed).
function failure(error, kind, limit = null) {
  return { success: false, error, stack: null, errorLine: null, returnJson: null, kind, limit };
}

class Runner {
  #config;
  #configKey;
  #host;
  #allowedCalls;
  #queryPaths;
  #worker = null;
  #starting = null;
  #active = null;
  #abandoning = null; // a cancelled run whose worker is being tested for reuse (#abandon)
  #closed = false;

  constructor(config, host) {
    if (host == null) throw new TypeError('a host { call, query, stop } is required');
    this.#config = normalizeConfig(config);
    this.#configKey = pool.configKey(this.#config);
    this.#host = host;
    // The prelude's host.call may use hostCalls; programs only see primitives.
    const members = this.#config.botMembers;
    this.#allowedCalls = new Set(['chat', ...this.#config.primitives, ...this.#config.hostCalls,
      ...members.filter((m) => m.kind === 'call').map((m) => `bot.${m.path}`)]);
    this.#queryPaths = new Set(members.filter((m) => m.kind !== 'call').map((m) => m.path));
  }

  get activeRunId() {
    return this.#active?.id ?? null;
  }

  // options: { budgetMs, entry, skills: [source], runId, isolation ("thread" or "process"; default config.isolation),
  //   ready: async () => void, awaited with the worker ready }
  async run(source, options = {}) {
    // A run already ended (cancelled) may still be stopping its body: wait for that, not fail.
    while (this.#active?.done) await this.#active.result;
    if (this.#closed) throw new Error('runner is closed');
    if (this.#active) throw new Error(`runner is busy with run ${this.#active.id}`);
    if (typeof source !== 'string') throw new TypeError('source must be a string');
    const skills = options.skills ?? [];
    if (!Array.isArray(skills) || skills.some((s) => typeof s !== 'string')) {
      throw new TypeError('skills must be an array of source strings');
    }
    if (options.entry !== undefined && !isIdentifier(options.entry)) {
      throw new TypeError(`invalid entry function name: ${JSON.stringify(options.entry)}`);
    }
    const isolation = options.isolation ?? this.#config.isolation;
    if (!ISOLATIONS.includes(isolation)) throw new TypeError(`isolation must be one of ${ISOLATIONS.join(', ')}`);
    const budgetMs = options.budgetMs ?? this.#config.defaultBudgetMs;
    if (!(budgetMs > 0)) throw new TypeError('budgetMs must be a positive number');
    const sourceBytes = [source, ...skills].reduce((sum, text) => sum + utf8Bytes(text), 0);
    if (sourceBytes > this.#config.maxSourceBytes) {
      const error = `program too large: its source and skills are ${sourceBytes} bytes (limit maxSourceBytes = ${this.#config.maxSourceBytes})`;
      return { success: false, error, stack: null, errorLine: null, kind: 'limit', limit: 'maxSourceBytes',
        chat: [], logs: [], returnValue: null, durationMs: 0, computeMs: 0 };
    }

    const run = {
      id: options.runId ?? null, // the caller's name for it (cancel, activeRunId)
      wire: `run-${++runsStarted}`, // the worker's: unique in the process, a worker may have served other runners
      chat: [], logs: [], pendingCalls: 0, worker: null, startedAt: 0, computeMs: () => 0, stopBudget: null, done: false, refused: null,
      chargedMs: 0, budgetFromMs: 0,
    };
    run.id ??= run.wire;
    run.result = new Promise((resolve) => { run.resolve = resolve; });
    this.#active = run;
    let worker;
    try {
      worker = await this.#readyWorker(isolation);
    } catch (err) {
      if (run.done) return run.result; // cancelled (or closed) while the worker was starting
      this.#active = null;
      throw err;
    }
    if (run.done) return run.result;
    if (options.ready) await options.ready(); // e.g. the start line of programs that play together
    if (run.done) return run.result;
    run.worker = worker;
    run.startedAt = performance.now();
    const workerMs = computeTimer(worker);
    run.computeMs = () => workerMs() + run.chargedMs; // the host's work for it counts too (charge())
    const clock = this.#config.budgetClock;
    const reason = clock === 'compute' ? `timed out after ${budgetMs} ms of computing time` : `timed out after ${budgetMs} ms`;
    run.stopBudget = startBudget(clock, {
      budgetMs,
      computeMs: () => run.computeMs() - run.budgetFromMs, // since restartBudget() last ran
      checkMs: this.#config.budgetCheckMs,
      onExhausted: () => this.cancel(run.id, reason, 'budget'),
    });
    worker.running = true;
    worker.post({ t: 'run', run: run.wire, source, skills, entry: options.entry });
    return run.result;
  }

  // Stops the run now: the body is stopped, and run() resolves with `reason` (kind 'limit': a limit the host keeps,
  // named by `limit`). A run out of budget or past a limit loses its worker (nothing survives a tight loop otherwise);
  // a cancelled one keeps it if the program was only waiting, the usual case (an episode ends while it awaits a call).
  cancel(runId, reason = 'cancelled', kind = 'cancelled', limit = kind === 'budget' ? 'budget' : null) {
    const run = this.#active;
    if (!run || run.id !== runId || run.done) return false;
    const keep = kind === 'cancelled';
    this.#finish(run, failure(String(reason), kind, limit),
      { stopBody: true, killWorker: !keep, abandonRun: keep });
    return true;
  }

  // The host's clock has moved on since the active run's budget started (on the simulator: simulated time has
  // passed): the budget starts again from here. The "compute" budget bounds the computing of one stretch in which
  // the program lets no time pass (a loop), not all of a program that plays a long episode. Returns whether a run
  // was restarted.
  restartBudget() {
    const run = this.#active;
    if (!run || run.done) return false;
    run.budgetFromMs = run.computeMs();
    return true;
  }

  // The host spent `ms` of its own computing answering the active run's calls or queries (e.g. a search of the
  // whole world): on the "compute" clock it counts against the run's budget like the program's own computing, so
  // a program cannot make the host do unbounded work for it. Returns whether a run was charged.
  charge(ms) {
    const run = this.#active;
    if (!run || run.done || !(ms > 0)) return false;
    run.chargedMs += ms;
    return true;
  }

  async close() {
    this.#closed = true;
    const run = this.#active;
    if (run) {
      this.cancel(run.id, 'runner closed');
      await run.result;
    }
    const starting = this.#starting;
    const worker = this.#worker;
    this.#worker = null;
    if (worker && this.#config.packed && worker.isolation !== 'process') worker.release(); // a slot of a shared worker (worker-pack.js)
    else if (worker) await pool.park(this.#poolKey(worker.isolation), worker, this.#config.poolIdleMs); // ended there unless clean
    if (starting) await (await starting.catch(() => null))?.terminate();
  }

  // A worker of the pool is kept per configuration and isolation.
  #poolKey(isolation) {
    return `${isolation}:${this.#configKey}`;
  }

  // A clean worker of this isolation: the current one, a parked one, or a new one. A current worker of the
  // other isolation is parked for whoever asks for that next.
  async #readyWorker(isolation) {
    let current = this.#worker;
    if (current && current.isolation !== isolation) {
      this.#worker = null;
      await pool.park(this.#poolKey(current.isolation), current, this.#config.poolIdleMs);
      current = null;
    }
    if (current && !current.dirty && await current.ping(this.#config.pingTimeoutMs)) return current;
    if (current) {
      this.#worker = null;
      await current.terminate();
    }
    if (this.#closed) throw new Error('runner is closed');
    const adopted = await this.#parkedWorker(isolation);
    if (adopted) {
      this.#worker = adopted;
      return adopted;
    }
    const box = { worker: null };
    const Sandbox = isolation === 'process' ? SandboxProcess : SandboxWorker;
    this.#starting = this.#config.packed && isolation !== 'process'
      ? packs.lease(this.#configKey, this.#config, this.#handlersOf(box))
      : Sandbox.start(this.#config, this.#handlersOf(box));
    let handle;
    try {
      handle = box.worker = await this.#starting;
      handle.isolation = isolation;
    } finally {
      this.#starting = null;
    }
    if (this.#closed) {
      await handle.terminate();
      throw new Error('runner is closed');
    }
    this.#worker = handle;
    return handle;
  }

  // A worker another runner with this configuration left, if one answers its ping.
  async #parkedWorker(isolation) {
    if (this.#config.packed && isolation !== 'process') return null; // packed workers are shared while in use, never parked
    for (;;) {
      const box = { worker: null };
      const worker = box.worker = pool.take(this.#poolKey(isolation), this.#handlersOf(box));
      if (worker === null) return null;
      if (await worker.ping(this.#config.pingTimeoutMs) && !worker.dirty && !this.#closed) return worker;
      await worker.terminate();
      if (this.#closed) throw new Error('runner is closed');
    }
  }

  // The worker's messages, queries, exit and limits, for this runner (box.worker: the worker).
  #handlersOf(box) {
    return {
      message: (msg) => this.#onMessage(box.worker, msg),
      query: (request) => this.#onQuery(box.worker, request),
      exit: (info) => this.#onExit(box.worker, info),
      limit: (info) => this.#onLimit(box.worker, info),
    };
  }

  #liveRun(worker, runId) {
    const run = this.#active;
    if (run && !run.done && run.worker === worker && run.wire === runId) return run;
    // Traffic from a finished run: something it started is still going. The
    // worker is replaced before the next run.
    worker.dirty = true;
    return null;
  }

  #onMessage(worker, msg) {
    // The cancelled program got its last answer before the cancel and ended on its own (an
    // episode's end both fails the pending primitive and cancels the run): a finished program, as
    // clean as one that ended before the cancel.
    const abandoning = this.#abandoning;
    if (msg.t === 'done' && abandoning?.worker === worker && abandoning.wire === msg.run) return;
    const run = this.#liveRun(worker, msg.run);
    if (!run) return;
    if (msg.t === 'call') this.#onCall(worker, run, msg);
    else if (msg.t === 'log') this.#record(run.logs, msg.line);
    else if (msg.t === 'done') this.#onDone(worker, run, msg.result);
    else if (msg.t === 'limit') this.#onLimit(worker, msg);
    else if (msg.t === 'refused') run.refused ??= msg; // a caught refusal (worker.js noteRefusal): its failure, see #finish
  }

  // The program returned; it is reported once its worker is idle. Code it left running (a promise chain that
  // reaches a loop or a wedging builtin after the return) is charged to it, not to the next program.
  // A slot of a packed worker (trusted programs only) is not asked: the shared worker's ping and traffic belong
  // to the other programs in it as much as to this one.
  async #onDone(worker, run, result) {
    if (this.#config.packed && worker.isolation !== 'process') {
      this.#finish(run, result, { stopBody: run.pendingCalls > 0 });
      return;
    }
    const idle = await worker.ping(this.#config.idleTimeoutMs);
    if (run.done) return; // its budget ran out meanwhile
    if (idle && !worker.dirty) {
      this.#finish(run, result, { stopBody: run.pendingCalls > 0 });
      return;
    }
    const error = `the program left code running after it returned: its sandbox did not answer within `
      + `${this.#config.idleTimeoutMs} ms (limit idleTimeoutMs)`;
    this.#finish(run, failure(error, 'limit', 'idleTimeoutMs'), { stopBody: true, killWorker: true });
  }

  // The program broke a limit (worker.js, memory-watch.js): it ends now, its worker with it.
  #onLimit(worker, { limit, error }) {
    const run = this.#active;
    if (!run || run.done || run.worker !== worker) return;
    const kind = limit === 'stalled' ? 'stalled' : 'limit';
    this.#finish(run, failure(error, kind, limit), { stopBody: true, killWorker: true });
  }

  async #onCall(worker, run, { id, name, args }) {
    let reply;
    if (!this.#allowedCalls.has(name)) {
      reply = { ok: false, error: `unknown primitive: ${name}` };
    } else {
      const decoded = decode(args, makeVec3);
      if (name === 'chat') this.#record(run.chat, String(decoded[0]));
      run.pendingCalls += 1;
      try {
        reply = { ok: true, value: encode(await this.#host.call(name, decoded), dropFunction, this.#answerLimits(name)) };
      } catch (err) {
        reply = { ok: false, error: errorText(err) };
      }
      run.pendingCalls -= 1;
    }
    if (!run.done) worker.post({ t: 'reply', id, ...reply });
  }

  async #onQuery(worker, request) {
    if (!this.#liveRun(worker, request.run)) throw new Error('the program has already finished');
    if (!this.#queryPaths.has(request.name)) throw new Error(`unknown query: ${request.name}`);
    const value = await this.#host.query(request.name, decode(request.args, makeVec3));
    this.charge(this.#config.queryChargeMs); // the round trip's own cost, which no clock of the program sees
    return encode(value, dropFunction, this.#answerLimits(`bot.${request.name}`));
  }

  #answerLimits(name) {
    return { what: `the answer to ${name}`, maxBytes: this.#config.maxMessageBytes };
  }

  #onExit(worker, { code }) {
    if (this.#worker === worker) this.#worker = null;
    const run = this.#active;
    if (!run || run.done || run.worker !== worker) return;
    const outcome = worker.outOfMemory
      ? failure(`out of memory: the program exceeded the sandbox heap limit of ${this.#config.memoryMb} MB (limit memoryMb)`, 'limit', 'memoryMb')
      : failure(`sandbox worker exited unexpectedly (code ${code})`, 'sandbox');
    this.#finish(run, outcome, { stopBody: true });
  }

  #record(lines, line) {
    if (lines.length >= this.#config.maxLogLines) return;
    const max = this.#config.maxLineLength;
    lines.push(line.length > max ? `${line.slice(0, max)}…` : line);
  }

  async #finish(run, outcome, { stopBody = false, killWorker = false, abandonRun = false }) {
    if (run.done) return;
    run.done = true;
    if (run.refused && outcome.kind !== 'limit') outcome = { ...run.refused, success: false, returnJson: null, kind: 'limit' };
    run.stopBudget?.();
    if (run.worker) run.worker.running = false;
    const durationMs = run.startedAt ? performance.now() - run.startedAt : 0;
    const computeMs = run.computeMs();
    if (killWorker && run.worker) {
      if (this.#worker === run.worker) this.#worker = null;
      await run.worker.terminate();
    }
    const abandoned = abandonRun && run.worker ? this.#abandon(run) : null;
    // Un-awaited primitives may still be acting; a cancelled run certainly is.
    if (stopBody) await this.#stopHost(run);
    await abandoned;
    if (this.#active === run) this.#active = null;
    run.resolve({
      success: outcome.success,
      error: outcome.error,
      stack: outcome.stack,
      errorLine: outcome.errorLine,
      kind: outcome.success ? null : (outcome.kind ?? 'program'),
      limit: outcome.success ? null : (outcome.limit ?? null),
      chat: run.chat,
      logs: run.logs,
      returnValue: outcome.returnJson == null ? null : JSON.parse(outcome.returnJson),
      durationMs: Math.round(durationMs * 10) / 10,
      computeMs: Math.round(computeMs * 10) / 10,
    });
  }

  // The worker drops the cancelled run (worker.js `abandon`) and stays if it then answers a ping
  // with no traffic from the run (a program still computing, or one that had a loop going, does
  // not answer in time): the same test as before reusing any worker (#readyWorker, the pool).
  async #abandon(run) {
    const worker = run.worker;
    this.#abandoning = run;
    worker.post({ t: 'abandon', run: run.wire });
    const answered = await worker.ping(this.#config.pingTimeoutMs);
    this.#abandoning = null;
    if (answered && !worker.dirty) return;
    if (this.#worker === worker) this.#worker = null;
    await worker.terminate();
  }

  // host.stop() gets a deadline: a wedged bridge must not wedge the runner.
  async #stopHost(run) {
    let timer;
    const deadline = new Promise((resolve) => {
      timer = setTimeout(resolve, this.#config.stopTimeoutMs, STOP_TIMED_OUT);
    });
    try {
      const outcome = await Promise.race([Promise.resolve().then(() => this.#host.stop()), deadline]);
      if (outcome === STOP_TIMED_OUT) {
        run.logs.push(`[host.stop() did not finish within ${this.#config.stopTimeoutMs} ms]`);
      }
    } catch (err) {
      run.logs.push(`[host.stop() failed: ${errorText(err)}]`);
    } finally {
      clearTimeout(timer);
    }
  }
}

module.exports = { Runner };
