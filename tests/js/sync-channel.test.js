'use strict';
// The worker's synchronous queries (sandbox/sync-channel.js): the worker blocks until the main thread says it
// answered, then takes the answer off its port. Every query must get its own answer, also when the signal
// arrives before the answer can be taken (a 200,000-query stress run saw it about once: the worker read nothing,
// threw "Cannot read properties of undefined", and every later query got the answer of the one before).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Worker, MessageChannel } = require('node:worker_threads');

const CHANNEL = path.join(__dirname, '../../blockpact/bridge/js/sandbox/sync-channel.js');
const { openSyncChannel } = require(CHANNEL);

// Runs `queries` requests {i} from a worker; resolves with the answers it got (or the error it threw).
function askFromWorker(workerEnd, queries) {
  const worker = new Worker(`
    const { workerData, parentPort } = require('node:worker_threads');
    const request = require(${JSON.stringify(CHANNEL)}).syncRequester(workerData.sync);
    const got = [];
    try { for (let i = 0; i < ${queries}; i += 1) got.push(request({ i })); } catch (err) { got.push(String(err)); }
    parentPort.postMessage(got);`, { eval: true, workerData: { sync: workerEnd }, transferList: [workerEnd.port] });
  return new Promise((resolve, reject) => {
    worker.once('message', (got) => { worker.terminate(); resolve(got); });
    worker.once('error', reject);
  });
}

test('each query gets its own answer, async answers included', async () => {
  const sync = openSyncChannel(async ({ i }) => i * 2);
  try {
    const got = await askFromWorker(sync.workerEnd, 500);
    assert.deepEqual(got, Array.from({ length: 500 }, (_, i) => ({ ok: true, value: i * 2 })));
  } finally {
    sync.close();
  }
});

test('a signal that comes before its answer is waited out, not read as no answer', async () => {
  // The main side done by hand, in the worst order: "answered" first, the answer 50 ms later.
  const { port1, port2 } = new MessageChannel();
  const signalBuffer = new SharedArrayBuffer(8 + 2 * Float64Array.BYTES_PER_ELEMENT);
  const signal = new Int32Array(signalBuffer, 0, 1);
  port1.on('message', ({ i }) => {
    Atomics.store(signal, 0, 1); // ANSWERED
    Atomics.notify(signal, 0);
    setTimeout(() => port1.postMessage({ ok: true, value: i }), 50);
  });
  try {
    assert.deepEqual(await askFromWorker({ port: port2, signalBuffer }, 3), [0, 1, 2].map((i) => ({ ok: true, value: i })));
  } finally {
    port1.close();
  }
});
