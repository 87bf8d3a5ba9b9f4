'use strict';
// Child-process entry of a sandbox process (sandbox-process.js): holds one sandbox worker thread
// (sandbox-worker.js, unchanged) and relays between it and the parent over the IPC channel. The worker
// may wedge inside a V8 builtin that worker.terminate() cannot interrupt (indexOf over an array-like of
// length 2**53-1); this process's main thread stays free, keeps answering the parent, and the parent
// ends the whole process with SIGKILL, which nothing can outlast.

const { SandboxWorker } = require('./sandbox-worker');

const answers = new Map(); // query id -> { resolve, reject }
let nextQuery = 1;
let handle = null;

function send(message) {
  if (process.connected) process.send(message);
}

const handlers = {
  message: (msg) => send({ k: 'message', msg }),
  // The worker waits in Atomics.wait; the parent answers (its runner asks the body).
  query: (request) => new Promise((resolve, reject) => {
    const id = nextQuery++;
    answers.set(id, { resolve, reject });
    send({ k: 'query', id, request });
  }),
  exit: ({ code }) => {
    send({ k: 'exit', code, outOfMemory: handle?.outOfMemory ?? false });
    process.exit(0);
  },
  limit: (info) => send({ k: 'limit', info }),
};

process.on('message', async (m) => {
  if (m.k === 'start') {
    try {
      handle = await SandboxWorker.start(m.config, handlers);
      send({ k: 'ready', threadId: handle.threadId });
    } catch (err) {
      send({ k: 'failed', error: err.message });
      process.exit(0);
    }
  } else if (m.k === 'post') {
    handle?.post(m.msg);
  } else if (m.k === 'answer') {
    const waiting = answers.get(m.id);
    answers.delete(m.id);
    if (m.ok) waiting?.resolve(m.value);
    else waiting?.reject(new Error(m.error));
  } else if (m.k === 'ping') {
    send({ k: 'pong', id: m.id, ok: handle != null && await handle.ping(m.timeoutMs) });
  } else if (m.k === 'running') {
    if (handle) handle.running = m.value;
  }
});

// The parent is gone (or closed the channel): nothing is left to serve.
process.on('disconnect', () => process.exit(0));
