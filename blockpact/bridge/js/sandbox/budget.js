'use strict';
// A run's time budget, on one of two clocks (config.budgetClock):
// - "wall": real time from the program's start. Right for a live bot, whose world runs in real time.
// - "compute": only the time the program computes, i.e. while the sandbox worker's event loop is
//   active (Node's event-loop utilisation of that thread). A program awaiting a primitive or a bot
//   call leaves the loop idle, so its budget stands still however long the host takes to answer
//   (on the simulator: while other programs take their turns, or the machine is loaded). Any loop,
//   synchronous or async (`for (;;) await null`), keeps the loop active and is cut off as before,
//   even with a primitive pending. A synchronous query blocks the worker in Atomics.wait, which is
//   active time too, but the time it waited for an answer is the host's and is taken off
//   (sync-channel.js): a Cleanup program spent 0.5-2.4 s of its 5 s budget waiting for Python's
//   answers on a loaded machine. The waiting of a query not yet answered still counts, so a query
//   the host never answers is still cut off.
// Nothing announces that a worker's active time reached the budget, so a timer checks it and
// re-arms for the budget still left (active time never runs faster than wall time).

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
