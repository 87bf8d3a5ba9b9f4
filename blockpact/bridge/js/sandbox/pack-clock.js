'use strict';
// Computing time per program in a packed worker (worker-pack.js), where several programs share one
// thread and the thread's CPU time (the "compute" budget clock, budget.js) no longer belongs to one
// program. The worker charges its CPU time to the program whose code it is running: it notes, in
// shared memory, which program it entered and the thread's CPU time then, and on entering another
// (a call's answer, a new run, or its own housekeeping) adds the difference to the one it leaves.
// The main thread reads a program's time as what was charged to it plus, while the worker is still
// in it, the thread's CPU time since then: a program looping without a pause is cut off as before.
//
// Layout of the shared Float64Array: [0] the slot entered last (-1: none), [1] the thread's CPU
// milliseconds when it was entered, [2 + slot] the milliseconds charged to each slot.

const { threadId, threadCpuMs } = require('./thread-cpu');

const ENTERED = 0;
const MARK = 1;
const FIRST_SLOT = 2;

function packClockBuffer(slots) {
  const cells = new Float64Array(new SharedArrayBuffer((FIRST_SLOT + slots) * Float64Array.BYTES_PER_ELEMENT));
  cells[ENTERED] = -1;
  return cells.buffer;
}

// The worker thread's own clock: its CPU time (Linux), else its event loop's busy time (the same
// reading the main thread takes through SandboxWorker.busyMs).
function ownClock() {
  const id = threadId();
  const cpu = id == null ? null : threadCpuMs(id);
  return cpu ? () => cpu() ?? 0 : () => performance.eventLoopUtilization().active;
}

// Worker side: enter(slot) charges the time since the last entry to the slot entered then.
function chargingClock(buffer) {
  const cells = new Float64Array(buffer);
  const now = ownClock();
  return {
    enter(slot) {
      const at = now();
      const left = cells[ENTERED];
      if (left >= 0) cells[FIRST_SLOT + left] += at - cells[MARK];
      cells[MARK] = at;
      cells[ENTERED] = slot;
    },
  };
}

// Main side: milliseconds charged to `slot`, given the worker thread's clock now (busyMs()).
function slotMs(buffer, slot, busyMs) {
  const cells = new Float64Array(buffer);
  const running = cells[ENTERED] === slot ? Math.max(0, busyMs() - cells[MARK]) : 0;
  return cells[FIRST_SLOT + slot] + running;
}

module.exports = { packClockBuffer, chargingClock, slotMs };
