'use strict';
// Packed workers: several trusted programs (scripted players' own code, never an LLM's or a user's)
// in one sandbox worker. A worker costs a V8 isolate (~14 MB) and an SES lockdown (~0.3 s of CPU) to
// start; a simulated world of 256 scripted players paid that 256 times. A runner configured `packed`
// leases a slot of a shared worker instead of owning one: its programs still run one at a time, each in
// a fresh Compartment with its own limits and its own compute budget (pack-clock.js charges the thread's
// CPU time to the program it runs), but they share the worker's thread, heap cap and event loop. So a
// program that breaks a limit ends alone, while one the worker cannot interrupt (a loop without a pause,
// the heap cap) is stopped by ending the worker, with every program in it: why only trusted programs
// are packed. A slot whose program had to be killed retires its worker: no new program joins it, and it
// ends once its last program has. An empty worker is parked (SandboxWorker.park: unref'd, any traffic
// marks it dirty) for `poolIdleMs`, for the next lease.
//
// A slot looks to its Runner like a SandboxWorker of its own (ping, post, computingMs, terminate, ...).

const { SandboxWorker } = require('./sandbox-worker');
const { packClockBuffer, slotMs } = require('./pack-clock');

const packs = new Map(); // config key -> [Pack] that take new programs
const live = new Set(); // every Pack not yet ended

class Pack {
  constructor(key, config) {
    this.key = key;
    this.config = config;
    this.capacity = Math.max(1, Math.floor(config.programsPerWorker));
    this.clock = packClockBuffer(this.capacity);
    this.free = Array.from({ length: this.capacity }, (_, i) => this.capacity - 1 - i); // slot indexes, popped
    this.slots = new Set();
    this.byRun = new Map(); // wire run id -> slot
    this.retired = false;
    this.idle = null; // timer ending an empty worker
    this.worker = null;
    live.add(this);
    this.ready = SandboxWorker.start(config, this.#router(), { clock: this.clock }).then((worker) => {
      this.worker = worker;
      return worker;
    }, (err) => {
      this.#drop();
      live.delete(this);
      throw err;
    });
  }

  get open() {
    return !this.retired && this.free.length > 0 && !this.worker?.dirty;
  }

  // Messages, queries and limits go to the slot whose run they name; the worker's exit to every slot.
  #router() {
    return {
      message: (msg) => {
        const slot = this.byRun.get(msg.run);
        if (slot) slot.handlers.message(msg);
        else this.#retire(); // traffic of a run whose runner has gone: something it started still runs
      },
      query: (request) => {
        const slot = this.byRun.get(request.run);
        if (!slot) throw new Error('the program has already finished');
        return slot.handlers.query(request);
      },
      exit: (info) => {
        this.#drop();
        live.delete(this);
        for (const slot of [...this.slots]) slot.handlers.exit(info);
      },
      limit: (info) => { // the process memory watch: a program computing without a pause while memory grew
        for (const slot of [...this.slots]) if (slot.isRunning) slot.handlers.limit(info);
      },
    };
  }

  lease(handlers) {
    if (this.idle !== null) { // parked while empty
      clearTimeout(this.idle);
      this.idle = null;
      this.worker.adopt(this.#router());
    }
    const slot = new Slot(this, this.free.pop(), handlers);
    this.slots.add(slot);
    return slot;
  }

  release(slot, clean) {
    if (!this.slots.delete(slot)) return;
    for (const [run, owner] of this.byRun) if (owner === slot) this.byRun.delete(run);
    this.free.push(slot.index);
    if (!clean) this.#retire();
    this.#updateRunning();
    if (this.slots.size > 0) return;
    if (this.retired || !this.worker) {
      this.terminate();
      return;
    }
    this.worker.park(() => {
      this.#drop();
      live.delete(this);
    });
    this.idle = setTimeout(() => this.terminate(), this.config.poolIdleMs);
    this.idle.unref();
  }

  // No program joins a worker that had one killed (what it left behind may still be running); if the
  // worker cannot even answer a ping, it is ended now, with the programs still in it.
  #retire() {
    if (this.retired) return;
    this.retired = true;
    this.#drop();
    this.worker?.ping(this.config.pingTimeoutMs).then((answered) => {
      if (!answered) this.terminate();
    });
  }

  #drop() {
    const list = packs.get(this.key);
    const at = list?.indexOf(this) ?? -1;
    if (at >= 0) list.splice(at, 1);
    if (list?.length === 0) packs.delete(this.key);
  }

  #updateRunning() {
    if (this.worker) this.worker.running = [...this.slots].some((slot) => slot.isRunning);
  }

  setRunning() {
    this.#updateRunning();
  }

  async terminate() {
    clearTimeout(this.idle);
    this.#drop();
    live.delete(this);
    await this.ready.then((worker) => worker.terminate(), () => {});
  }
}

class Slot {
  #pack;
  #dirty = false;
  #released = false;
  #wire = null; // the run it posted last
  isRunning = false;

  constructor(pack, index, handlers) {
    this.#pack = pack;
    this.index = index;
    this.handlers = handlers;
  }

  get dirty() {
    return this.#dirty || this.#pack.retired;
  }

  set dirty(value) {
    this.#dirty = value;
  }

  set running(value) {
    this.isRunning = value;
    this.#pack.setRunning();
  }

  get computingMs() {
    const worker = this.#pack.worker;
    return slotMs(this.#pack.clock, this.index, () => worker.busyMs);
  }

  get outOfMemory() {
    return this.#pack.worker.outOfMemory;
  }

  post(message) {
    if (message.t === 'run') {
      this.#wire = message.run;
      this.#pack.byRun.set(message.run, this);
      this.#pack.worker.post({ ...message, slot: this.index });
      return;
    }
    this.#pack.worker.post(message);
  }

  ping(timeoutMs) {
    return this.#pack.worker.ping(timeoutMs);
  }

  // The runner is done with this slot (it closes, or wants a fresh worker): its last run is dropped in
  // the worker; a slot given up other than by a clean close retires the worker (see Pack.#retire),
  // unless it never ran a program.
  async terminate() {
    this.#leave(this.#wire === null);
  }

  release() {
    this.#leave(!this.#dirty);
  }

  #leave(clean) {
    if (this.#released) return;
    this.#released = true;
    if (this.#wire !== null && this.#pack.worker) this.#pack.worker.post({ t: 'abandon', run: this.#wire });
    this.#pack.release(this, clean);
  }
}

// A slot of a packed worker for `config` (normalized, `packed`), owned by `handlers`' runner.
async function lease(key, config, handlers) {
  const list = packs.get(key) ?? [];
  let pack = list.find((p) => p.open);
  if (!pack) {
    pack = new Pack(key, config);
    list.push(pack);
    packs.set(key, list);
  }
  const slot = pack.lease(handlers);
  try {
    await pack.ready;
  } catch (err) {
    pack.release(slot, true);
    throw err;
  }
  return slot;
}

// Packed workers and the programs in them (for tests and benches).
function packStats() {
  let programs = 0;
  for (const pack of live) programs += pack.slots.size;
  return { workers: live.size, programs };
}

// Ends every packed worker no program holds: for a caller that must leave no thread behind (tests).
async function drainPacks() {
  await Promise.all([...live].filter((pack) => pack.slots.size === 0).map((pack) => pack.terminate()));
}

module.exports = { lease, packStats, drainPacks };
