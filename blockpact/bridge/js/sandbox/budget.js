'use strict';
// A run's time budget, on one of two clocks (config.budgetClock):
// - "wall": real time from the program's start. Right for a live bot, whose world runs in real time.
// - "compute": only the time the program computes: the sandbox worker thread's CPU time
//   (SandboxWorker.computingMs, thread-cpu.js; without /proc, its event loop's busy time less its
//   waits for answered queries). A program awaiting a primitive, a bot call or a query's answer
//   uses no CPU, so its budget stands still however long the host takes to answer (on the
//   simulator: while other programs take their turns, or the machine is loaded). Any loop,
//   synchronous or async (`for (;;) await null`), is cut off as before, even with a primitive
//   pending, and the wait for a query not yet answered counts, so a query the host never answers
//   is still cut off.
// Nothing announces that a worker's clock reached the budget, so a timer checks it and
// re-arms for the budget still left (the clock never runs faster than wall time).

const BUDGET_CLOCKS = Object.freeze(['wall', 'compute']);

// () -> milliseconds the worker has computed since this call. Never decreases (an exited worker's
// reading, and one taken while a query's wait is being taken off, may be lower than the last).
function computeTimer(worker) {
  const start = worker.computingMs;
  let used = 0;
  return () => {
    used = Math.max(used, worker.computingMs - start);
    return used;
  };
}

// Calls onExhausted() once the budget is used up on `clock`; returns a function that stops it.
// computeMs: a computeTimer of the run's worker; checkMs: the shortest wait between two checks.
function startBudget(clock, { budgetMs, computeMs, checkMs, onExhausted }) {
  let timer;
  if (clock === 'wall') {
    timer = setTimeout(onExhausted, budgetMs);
  } else {
    const check = () => {
      const left = budgetMs - computeMs();
      if (left <= 0) onExhausted();
      else timer = setTimeout(check, Math.max(left, checkMs));
    };
    timer = setTimeout(check, budgetMs);
  }
  return () => clearTimeout(timer);
}

module.exports = { startBudget, computeTimer, BUDGET_CLOCKS };
