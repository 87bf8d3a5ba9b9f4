'use strict';
// The compute budget's clock (thread-cpu.js): a thread's CPU time grows while it computes and stands
// still while it waits, however long the wait; where /proc is missing the runner keeps busy time.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { threadId, threadCpuMs } = require(path.join(__dirname, '../../blockpact/bridge/js/sandbox/thread-cpu.js'));

test('a thread uses CPU time while it computes and none while it waits', { skip: process.platform !== 'linux' }, async () => {
  const id = threadId();
  assert.ok(Number.isInteger(id), `thread id ${id}`);
  const cpuMs = threadCpuMs(id);
  // Spin until the clock shows 100 ms of CPU (a busy machine may leave the thread without a core for a while):
  // the CPU time grows, and never by more than the wall time spent.
  const before = cpuMs();
  const started = performance.now();
  while (cpuMs() - before < 100 && performance.now() - started < 10000) { /* computing */ }
  const spun = cpuMs();
  const wall = performance.now() - started;
  assert.ok(spun - before >= 100 && spun - before <= wall + 20, `spinning ${wall.toFixed(0)} ms used ${spun - before} ms of CPU`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.ok(cpuMs() - spun <= 30, `waiting 300 ms used ${cpuMs() - spun} ms of CPU`);
  assert.equal(threadCpuMs(2 ** 30)(), null); // no such thread (or one that has exited)
});
