'use strict';
// Synchronous queries from the worker: Voyager programs read bot state
// (bot.blockAt(pos), bot.entity.position) without await, while the main thread
// may need to await to answer (e.g. ask Python). The worker posts a request on
// a dedicated port, blocks in Atomics.wait, then takes the answer off the port
// with receiveMessageOnPort (any size, no fixed buffer to overflow).
//
// The worker also records, in shared memory, how long it was blocked for answers: that time is the
// host's, not the program's (budget.js, the "compute" clock), except while a query is still
// unanswered, so a query the host never answers still counts as computing and is cut off.

const { MessageChannel, receiveMessageOnPort } = require('node:worker_threads');

const clock = () => performance.timeOrigin + performance.now(); // the same in every thread
const PENDING = 0;
const ANSWERED = 1;
const WAITED_OFFSET = 8; // bytes: the Int32 signal, padding, then Float64s: ms waited, start of the current wait

// Main side. `answer(request)` may be async; its rejection becomes an error reply.
function openSyncChannel(answer) {
  const { port1, port2 } = new MessageChannel();
  const signalBuffer = new SharedArrayBuffer(WAITED_OFFSET + 2 * Float64Array.BYTES_PER_ELEMENT);
  const signal = new Int32Array(signalBuffer, 0, 1);
  const waited = new Float64Array(signalBuffer, WAITED_OFFSET, 2);
  port1.on('message', async (request) => {
    let reply;
    try {
      reply = { ok: true, value: await answer(request) };
    } catch (err) {
      reply = { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    try {
      port1.postMessage(reply);
    } catch (err) {
      port1.postMessage({ ok: false, error: `query answer could not be sent: ${err.message}` });
    }
    Atomics.store(signal, 0, ANSWERED);
    Atomics.notify(signal, 0);
  });
  // unref: a parked worker's channel must not keep the process alive (worker-pool.js).
  return {
    workerEnd: { port: port2, signalBuffer },
    waitedMs: () => waited[0], // milliseconds the worker has waited for answered queries, since it started
    // milliseconds the worker has been waiting for the query it asked last, if unanswered (else 0)
    waitingMs: () => (waited[1] > 0 ? Math.max(0, clock() - waited[1]) : 0),
    close: () => port1.close(),
    ref: () => port1.ref(),
    unref: () => port1.unref(),
  };
}

// Worker side: returns request(message) -> reply, blocking until answered.
function syncRequester({ port, signalBuffer }) {
  const signal = new Int32Array(signalBuffer, 0, 1);
  const waited = new Float64Array(signalBuffer, WAITED_OFFSET, 2);
  return (request) => {
    Atomics.store(signal, 0, PENDING);
    const asked = clock();
    waited[1] = asked;
    port.postMessage(request);
    let reply = null;
    while (reply === null) {
      Atomics.wait(signal, 0, PENDING);
      // The signal can say ANSWERED before the answer can be taken off the port (a stress test saw it about
      // once in 200,000 queries): wait for it rather than read nothing, which also left this answer to be
      // taken as the next query's. An answer that never comes is cut off by the budget (an unanswered query
      // counts as computing).
      reply = receiveMessageOnPort(port) ?? null;
      if (reply === null) Atomics.wait(signal, 0, ANSWERED, 1);
    }
    waited[0] += clock() - asked;
    waited[1] = 0;
    return reply.message;
  };
}

module.exports = { openSyncChannel, syncRequester };
