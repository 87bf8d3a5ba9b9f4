'use strict';
// Escape attempts. Each must fail inside the sandbox and be reported as the
// run's error; the host must see nothing it did not expect; and the same
// runner must run a normal program right after.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { createRunner, drainPool } = require(path.join(__dirname, '../../blockpact/bridge/js/sandbox'));
const { scaled } = require('./pace');

const MC_VERSION = '1.20.4';
process.env.BLOCKPACT_TEST_SECRET = 'must-not-leak';

// `unanswered`: calls the host never settles (a primitive that is still acting).
function recordingHost(username, unanswered = []) {
  const host = {
    calls: [],
    queries: [],
    stops: 0,
    async call(name, args) {
      host.calls.push([name, args]);
      return unanswered.includes(name) ? new Promise(() => {}) : null;
    },
    query(name, args) {
      host.queries.push([name, args]);
      return name === 'username' ? username : null;
    },
    stop() {
      host.stops += 1;
    },
  };
  return host;
}

const host = recordingHost('alice');
const runner = createRunner({ mcVersion: MC_VERSION, memoryMb: 64 }, host);
const otherHost = recordingHost('bob');
const otherRunner = createRunner({ mcVersion: MC_VERSION }, otherHost);
// The simulator's clock: the budget counts only the time the program computes.
const computeHost = recordingHost('carol', ['moveTo']);
const computeRunner = createRunner({ mcVersion: MC_VERSION, budgetClock: 'compute' }, computeHost);

// Every worker and its ports must be gone after close(); handles are released
// a few ticks after a worker's exit, so give them a moment.
async function workerHandlesLeft() {
  const left = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort' || r === 'Worker');
  for (let i = 0; i < 50 && left().length > 0; i += 1) await new Promise((r) => setTimeout(r, 20));
  return left();
}

test.after(async () => {
  await Promise.all([runner.close(), otherRunner.close(), computeRunner.close()]);
  await drainPool(); // closed runners park their clean workers for reuse
  assert.deepEqual(await workerHandlesLeft(), []);
});

async function assertContained(body, expectedError, { budgetMs = 5000, stops = 0, calls = [], compute = false } = {}) {
  const [target, targetHost, username] = compute ? [computeRunner, computeHost, 'carol'] : [runner, host, 'alice'];
  targetHost.calls.length = 0;
  targetHost.stops = 0;
  const result = await target.run(`async function attack(bot) {\n${body}\n}`, { budgetMs });
  assert.equal(result.success, false, `escape succeeded: ${JSON.stringify(result.returnValue)}`);
  assert.match(result.error, expectedError);
  assert.deepEqual(targetHost.calls.map(([name]) => name), calls);
  assert.equal(targetHost.stops, stops);
  assert.equal(Object.prototype.polluted, undefined);
  assert.equal(process.env.BLOCKPACT_TEST_SECRET, 'must-not-leak');
  const after = await target.run('async function ok(bot) { return bot.username; }', { budgetMs: 5000 });
  assert.equal(after.success, true, after.error);
  assert.equal(after.returnValue, username);
  return result;
}

// SES resolves unknown globals to undefined (its scope proxy claims every
// name), so a missing host power shows up as a TypeError, not a ReferenceError.
test('require is not there', async () => {
  await assertContained("return require('fs').readFileSync('/etc/passwd', 'utf8');", /TypeError: require is not a function/);
});

test('process and its environment are not there', async () => {
  await assertContained('return process.env.BLOCKPACT_TEST_SECRET;', /TypeError: Cannot read properties of undefined \(reading 'env'\)/);
  await assertContained('return globalThis.process.env;', /TypeError: Cannot read properties of undefined/);
});

test('worker and host globals are not there', async () => {
  const names = ['require', 'process', 'module', 'setTimeout', 'setImmediate', 'queueMicrotask', 'fetch',
    'postMessage', 'parentPort', 'getStackString', 'Buffer', 'WebAssembly', 'SharedArrayBuffer', 'Atomics', 'host'];
  const result = await assertContained(
    `const present = ${JSON.stringify(names)}.filter((n) => typeof globalThis[n] !== 'undefined');\n` +
    'throw new Error("present: " + present.join(","));', /^Error: present: $/);
  assert.equal(result.errorLine, 3);
  await assertContained('lockdown();', /Already locked down/);
});

test('the Function constructor cannot reach the host realm', async () => {
  await assertContained("return this.constructor.constructor('return process')().env;", /TypeError: Cannot read properties of undefined \(reading 'constructor'\)/);
  await assertContained("return ({}).constructor.constructor('return process')().env;", /TypeError: Function.prototype.constructor is not a valid constructor/);
  await assertContained("return bot.chat.constructor('return process')().env;", /not a valid constructor/);
  await assertContained("return (async function () {}).constructor('return process')();", /not a valid constructor/);
  await assertContained("return Function('return process')().env;", /TypeError: Cannot read properties of undefined/);
  await assertContained("return new Function('return this')().process.env;", /TypeError: Cannot read properties of undefined/);
});

test('eval cannot escape either', async () => {
  await assertContained("return eval('process');", /SES_EVAL_REJECTED|ReferenceError/);
  await assertContained("return (0, eval)('process.env');", /TypeError: Cannot read properties of undefined/);
  await assertContained("return (0, eval)('req' + 'uire')('fs');", /TypeError: \(0 , eval\)\(...\) is not a function/);
});

test('dynamic import is refused', async () => {
  await assertContained("return import('fs');", /SES_IMPORT_REJECTED/);
  await assertContained("return (0, eval)('imp' + 'ort(\"fs\")');", /SES_IMPORT_REJECTED/);
});

test('V8 stack trace hooks do not hand out host functions', async () => {
  await assertContained(`
  Error.prepareStackTrace = (error, frames) => frames.map((f) => f.getFunction && f.getFunction());
  const fns = new Error('probe').stack;
  const leaked = Array.isArray(fns) && fns.find((f) => typeof f === 'function');
  return leaked.constructor('return process')().env;`, /TypeError: .* is not a function/);
});

test('prototype pollution is refused and never reaches the main thread', async () => {
  await assertContained("Object.prototype.polluted = 'yes';", /TypeError: Cannot add property polluted, object is not extensible/);
  await assertContained("({}).__proto__.polluted = 'yes';", /TypeError: Cannot add property polluted/);
  await assertContained('Array.prototype.push = () => 0;', /TypeError: Cannot assign to read only property/);
  await assertContained("Object.defineProperty(Object.prototype, 'polluted', { value: 1 });", /TypeError: Cannot define property polluted/);
  await assertContained('Vec3.prototype.offset = () => null;', /TypeError: Cannot assign to read only property 'offset'/);
  await assertContained('bot.chat = () => null;', /TypeError: Cannot assign to read only property 'chat'/);
  // Data with a "__proto__" key arrives as a plain key, not as a prototype.
  const result = await runner.run(
    'async function main(bot) {\n  await moveTo(bot, JSON.parse(\'{"__proto__": {"polluted": 1}}\'));\n  return JSON.parse(\'{"__proto__": {"polluted": 2}}\');\n}',
    { budgetMs: 5000 });
  assert.equal(result.success, true, result.error);
  const [, [arg]] = host.calls.at(-1);
  assert.equal(Object.getPrototypeOf(arg), Object.prototype);
  assert.equal(arg.polluted, undefined);
  assert.equal(result.returnValue.polluted, undefined);
  assert.equal(Object.prototype.polluted, undefined);
});

test("a program cannot reach another runner's bot, nor the next run's globals", async () => {
  otherHost.calls.length = 0;
  otherHost.queries.length = 0;
  // The other body is busy with its own program while ours searches everything
  // reachable for a bot that is not its own.
  let release;
  const otherRun = otherRunner.run('async function wait(bot) { return waitSignal(bot, "go"); }', { budgetMs: 10000 });
  otherHost.call = async (name, args) => {
    otherHost.calls.push([name, args]);
    return new Promise((resolve) => { release = resolve; });
  };
  const probe = `
  const seen = new Set();
  const found = [];
  const visit = (value, depth) => {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value) || depth > 4) return;
    seen.add(value);
    if (value !== bot && typeof value.chat === 'function') found.push(value);
    for (const key of Reflect.ownKeys(value)) {
      if (key === 'mcData') continue;
      let child;
      try { child = value[key]; } catch { continue; }
      visit(child, depth + 1);
    }
  };
  visit(globalThis, 0);
  globalThis.stash = bot;
  if (found.length) return found.map((b) => b.username);
  throw new Error('no other bot reachable, I am ' + bot.username);`;
  await assertContained(probe, /^Error: no other bot reachable, I am alice$/);
  while (!release) await new Promise((r) => setTimeout(r, 5));
  release('went');
  assert.equal((await otherRun).returnValue, 'went');
  assert.deepEqual(otherHost.calls, [['waitSignal', ['go']]]);
  assert.deepEqual(otherHost.queries, []);
  // A fresh Compartment per run: nothing stashed by the probe survives.
  await assertContained('return stash.username;', /TypeError: Cannot read properties of undefined/);
});

test('while (true) {} is stopped by the budget', async () => {
  const result = await assertContained('while (true) {}', /^timed out after 300 ms$/, { budgetMs: 300, stops: 1 });
  assert.ok(result.durationMs >= 290 && result.durationMs < scaled(2) * 1000, `durationMs ${result.durationMs}`);
});

test('an async loop that never awaits a primitive is stopped by the budget', async () => {
  await assertContained('while (true) await Promise.resolve();', /^timed out after 300 ms$/, { budgetMs: 300, stops: 1 });
});

test('on the compute clock, loops are stopped by the budget all the same', async () => {
  const computing = /^timed out after 300 ms of computing time$/;
  const spin = await assertContained('while (true) {}', computing, { budgetMs: 300, stops: 1, compute: true });
  // 300 ms of the worker's CPU: as many wall seconds more as the machine is busy
  assert.ok(spin.durationMs >= 290 && spin.durationMs < scaled(2) * 1000, `durationMs ${spin.durationMs}`);
  assert.ok(spin.computeMs >= 290, `computeMs ${spin.computeMs}`);
  await assertContained('while (true) await Promise.resolve();', computing, { budgetMs: 300, stops: 1, compute: true });
  await assertContained('for (;;) bot.username;', computing, { budgetMs: 300, stops: 1, compute: true });
  // A primitive in flight does not pause the budget of a program that goes on computing.
  await assertContained('moveTo(bot, 1, 2, 3);\nwhile (true) {}', computing,
    { budgetMs: 300, stops: 1, calls: ['moveTo'], compute: true });
  await assertContained('const walking = moveTo(bot, 1, 2, 3);\nwhile (true) await null;', computing,
    { budgetMs: 300, stops: 1, calls: ['moveTo'], compute: true });
});

test('unbounded memory growth ends the run with a memory error', async () => {
  const result = await assertContained(
    'const hoard = [];\nwhile (true) hoard.push(new Array(1e6).fill(hoard.length));',
    /^out of memory: the program exceeded the sandbox heap limit of 64 MB \(limit memoryMb\)$/, { budgetMs: 20000, stops: 1 });
  assert.ok(result.durationMs < 20000);
});
