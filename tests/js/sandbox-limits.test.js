'use strict';
// Resource limits of the sandbox: hostile programs that try to crash, jam or flood the Node
// process. Each must end with an error naming the limit it broke, within its budget, the next
// program on the same runner must succeed, and the process must stay under 1 GB resident.
// Real SES lockdown in real worker threads; the host is a recording stand-in for the body.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { createRunner, drainPool } = require(path.join(__dirname, '../../blockpact/bridge/js/sandbox'));
const { scaled } = require('./pace');

const MC_VERSION = '1.20.4';
const GB = 1024 ** 3;

function recordingHost(answers = {}) {
  const host = {
    calls: [],
    stops: 0,
    async call(name, args) {
      host.calls.push([name, args]);
      return answers[name] ? answers[name](...args) : null;
    },
    query(name, args) {
      return answers[name] ? answers[name](...args) : null;
    },
    stop() {
      host.stops += 1;
    },
  };
  return host;
}

// The highest resident set of this process seen while `work` ran.
async function peakRss(work) {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 5);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, peak };
  } finally {
    clearInterval(timer);
  }
}

const runners = [];
function makeRunner(host, config = {}) {
  const runner = createRunner({ mcVersion: MC_VERSION, ...config }, host);
  runners.push(runner);
  return runner;
}

test.after(async () => {
  await Promise.all(runners.map((r) => r.close()));
  await drainPool(); // closed runners park their clean workers for reuse
  const left = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort' || r === 'Worker');
  for (let i = 0; i < 50 && left().length > 0; i += 1) await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(left(), []);
});

const simHost = recordingHost({ waitSignal: () => new Promise((r) => setTimeout(r, 20, 'Glitch')) });
// The simulator's configuration: compute clock, stall check.
const sim = makeRunner(simHost, { budgetClock: 'compute', stallCheck: true });

// Runs a hostile program, checks its error, kind and limit, the time it took and the process's
// memory, then that a normal program succeeds on the same runner.
async function assertLimited(source, { error, kind = 'limit', limit, budgetMs = 3000, runner = sim, host = simHost }) {
  host.calls.length = 0;
  const started = performance.now();
  const { value: result, peak } = await peakRss(() => runner.run(source, { budgetMs }));
  const seconds = (performance.now() - started) / 1000;
  assert.equal(result.success, false, 'the hostile program succeeded');
  assert.match(result.error, error);
  assert.equal(result.kind, kind);
  assert.equal(result.limit, limit);
  assert.ok(seconds < scaled(budgetMs / 1000 + 15), `took ${seconds} s`);
  assert.ok(peak < GB, `the Node process reached ${Math.round(peak / 2 ** 20)} MB`);
  const after = await runner.run('async function ok(bot) { await waitSignal(bot, "go"); bot.chat("fine"); return 1; }', { budgetMs: 5000 });
  assert.equal(after.success, true, after.error);
  assert.equal(after.returnValue, 1);
  assert.deepEqual(after.chat, ['fine']);
  return { result, seconds, peak };
}

test('1: one long string referenced many times is measured per reference and refused', async () => {
  // 300 references to one 200-byte string: 60 kB as JSON, over the 32 KiB a call's arguments may hold.
  await assertLimited(
    'async function main(bot) {\n  const s = "x".repeat(200);\n  await moveTo(bot, new Array(300).fill(s));\n}',
    { error: /^RangeError: moveTo: argument too large: \d+ bytes, limit 32768 \(limit maxArgumentBytes\)/, limit: 'maxArgumentBytes' });
  await assertLimited(
    'async function main(bot) {\n  const s = "x".repeat(1e6);\n  await moveTo(bot, new Array(300).fill(s));\n}',
    { error: /^RangeError: moveTo: argument too large: over 1048576 bytes, limit 32768 \(limit maxArgumentBytes\)/, limit: 'maxArgumentBytes' });
  assert.deepEqual(simHost.calls.filter(([n]) => n === 'moveTo'), []);
});

test('2: a program awaiting a promise that never settles ends as stalled at once', async () => {
  const { seconds } = await assertLimited('async function main(bot) {\n  await new Promise(() => {});\n}',
    { error: /^stalled: the program awaits something that can never happen/, kind: 'stalled', limit: 'stalled', budgetMs: 60000 });
  assert.ok(seconds < scaled(2), `took ${seconds} s`);
  // Also after primitives, and with an un-awaited primitive failing meanwhile.
  await assertLimited('async function main(bot) {\n  await waitSignal(bot, "a");\n  mineBlock(bot);\n  await new Promise(() => {});\n}',
    { error: /^stalled/, kind: 'stalled', limit: 'stalled', budgetMs: 60000 });
  // Without the stall check (a live bot), the wall budget ends it.
  const wallHost = recordingHost({ waitSignal: () => 'Glitch' });
  const live = makeRunner(wallHost);
  await assertLimited('async function main(bot) {\n  await new Promise(() => {});\n}',
    { error: /^timed out after 500 ms$/, kind: 'budget', limit: 'budget', budgetMs: 500, runner: live, host: wallHost });
});

test('3: a deeply nested return value is refused by its depth', async () => {
  await assertLimited(
    'async function main(bot) {\n  let v = [];\n  for (let i = 0; i < 3000; i++) v = [v];\n  return v;\n}',
    { error: /^RangeError: the return value too deep: over 32 levels of nesting \(limit maxDepth\)/, limit: 'maxDepth' });
  await assertLimited(
    'async function main(bot) {\n  const s = "y".repeat(1e6);\n  return [s, s, s];\n}',
    { error: /the return value too large: over 1048576 bytes/, limit: 'maxMessageBytes' });
});

test('4: starting many primitive calls without awaiting them hits the cap on calls in flight', async () => {
  await assertLimited('async function main(bot) {\n  for (let i = 0; i < 100000; i++) mineBlock(bot, "stone", 1);\n}',
    { error: /^too many primitive calls in flight: 64 started and not finished \(limit maxPendingCalls = 64/, limit: 'maxPendingCalls' });
  const mined = simHost.calls.filter(([n]) => n === "mineBlock").length;
  assert.ok(mined <= 64, `${mined} calls reached the host`);
  // Un-awaited chat counts too.
  await assertLimited('async function main(bot) {\n  for (let i = 0; i < 100000; i++) moveTo(bot, new Vec3(1, 2, 3));\n  await new Promise(() => {});\n}',
    { error: /maxPendingCalls/, limit: 'maxPendingCalls' });
});

test('5: chat lines are cut to 256 characters and counted per program', async () => {
  simHost.calls.length = 0;
  const long = await sim.run('async function main(bot) {\n  bot.chat("z".repeat(1e6));\n  await waitSignal(bot);\n}', { budgetMs: 3000 });
  assert.equal(long.success, true, long.error);
  assert.equal(long.chat[0].length, 256);
  assert.deepEqual(simHost.calls.find(([n]) => n === 'chat')[1][0].length, 256);
  const { result } = await assertLimited(
    'async function main(bot) {\n  for (let i = 0; i < 300; i++) { bot.chat("z".repeat(1e4)); await waitSignal(bot); }\n}',  // long lines, not a megabyte each: 300 MB of text hit the compute budget first at load 20-40
    { error: /^too many chat messages: over 200 in one program \(limit maxChatMessages\)$/, limit: 'maxChatMessages' });
  assert.equal(result.chat.length, 200);
  assert.ok(result.chat.every((line) => line.length <= 256));
  // A live bot also has a rate: chatBurst lines at once, then chatPerSecond.
  const liveHost = recordingHost();
  const live = makeRunner(liveHost, { chatPerSecond: 2, chatBurst: 5 });
  await assertLimited('async function main(bot) {\n  for (let i = 0; i < 20; i++) { bot.chat("hi " + i); await moveTo(bot); }\n}',
    { error: /^chat too fast: over 5 messages at once or 2 per second \(limit chatPerSecond\)$/, limit: 'chatPerSecond', runner: live, host: liveHost });
});

test('6: a typed array argument is measured as the numbers it becomes', async () => {
  // 20,000 bytes become 40,000 bytes of JSON numbers ("0,"): over the 32 KiB a call's arguments may hold.
  await assertLimited('async function main(bot) {\n  await moveTo(bot, new Uint8Array(20000));\n}',
    { error: /^RangeError: moveTo: argument too large: \d+ bytes, limit 32768 \(limit maxArgumentBytes\)/, limit: 'maxArgumentBytes' });
  await assertLimited('async function main(bot) {\n  await moveTo(bot, new Uint8Array(30e6));\n}',
    { error: /argument too large: over 1048576 bytes, limit 32768 \(limit maxArgumentBytes\)/, limit: 'maxArgumentBytes' });
  // A small one crosses as an array of numbers.
  const small = await sim.run('async function main(bot) {\n  await moveTo(bot, new Uint8Array([1, 2, 3]));\n}', { budgetMs: 3000 });
  assert.equal(small.success, true, small.error);
  assert.deepEqual(simHost.calls.at(-1), ['moveTo', [[1, 2, 3]]]);
});

test('7: ArrayBuffer memory is capped like the heap, in a loop that never yields too', async () => {
  // Filled in one synchronous loop: only the process watch can see it.
  const sync = await assertLimited(
    'async function main(bot) {\n  const keep = [];\n  for (let i = 0; i < 15; i++) keep.push(new Uint8Array(1e8).fill(1));\n}',
    { error: /^out of memory: the Node process grew by \d+ MB while this program computed without pausing \(limit busyGrowthMb = 256\)$/, limit: 'busyGrowthMb', budgetMs: 20000 });
  // Filled between primitive calls: the worker measures itself.
  const stepwise = await assertLimited(
    'async function main(bot) {\n  const keep = [];\n  for (let i = 0; i < 15; i++) { keep.push(new Uint8Array(5e7).fill(1)); await waitSignal(bot); }\n}',
    { error: /^out of memory: the program holds over 128 MB of ArrayBuffer memory \(limit memoryMb\)$/, limit: 'memoryMb', budgetMs: 20000 });
  console.log(`# peak resident set: sync ${Math.round(sync.peak / 2 ** 20)} MB, stepwise ${Math.round(stepwise.peak / 2 ** 20)} MB`);
});

test('more: heap growth, async infinite recursion, log floods and huge logged values end cleanly', async () => {
  await assertLimited('async function main(bot) {\n  const keep = [];\n  for (;;) keep.push(new Array(1e6).fill(1.5));\n}',
    { error: /^out of memory: the program exceeded the sandbox heap limit of 128 MB \(limit memoryMb\)$/, limit: 'memoryMb', budgetMs: 20000 });
  const recursion = await sim.run('async function main(bot) {\n  async function f() { await f(); }\n  await f();\n}', { budgetMs: 3000 });
  assert.equal(recursion.success, false);
  assert.match(recursion.error, /RangeError: Maximum call stack size exceeded/);
  const flood = await sim.run('async function main(bot) {\n  for (let i = 0; i < 1e5; i++) log("w".repeat(1e5));\n}', { budgetMs: 3000 });
  assert.equal(flood.success, true, flood.error);
  assert.equal(flood.logs.length, 1000);
  assert.ok(flood.logs.every((line) => line.length <= 2001));
  const shared = await sim.run('async function main(bot) {\n  const s = "q".repeat(1e6);\n  log(new Array(300).fill(s));\n}', { budgetMs: 3000 });
  assert.deepEqual(shared.logs, ['[value too large to log: over 8192 bytes]']);
});

test('more: a host answer too large to send fails the call, not the process', async () => {
  const host = recordingHost({ checkItemInsideChest: () => 'v'.repeat(2e6), findBlock: () => new Array(1e5).fill({ name: 'stone', x: 1 }) });
  const runner = makeRunner(host, { budgetClock: 'compute', stallCheck: true });
  const call = await runner.run('async function main(bot) {\n  await checkItemInsideChest(bot);\n}', { budgetMs: 3000 });
  assert.match(call.error, /the answer to checkItemInsideChest too large: over 1048576 bytes/);
  const query = await runner.run('async function main(bot) {\n  return bot.findBlock({ matching: 1 });\n}', { budgetMs: 3000 });
  assert.match(query.error, /the answer to bot.findBlock too large/);
  const ok = await runner.run('async function main(bot) { return 2; }', { budgetMs: 3000 });
  assert.equal(ok.returnValue, 2);
});

test('more: a huge error message is cut, a huge program is refused', async () => {
  const thrown = await sim.run('async function main(bot) {\n  throw new Error("e".repeat(1e8));\n}', { budgetMs: 5000 });
  assert.equal(thrown.success, false);
  assert.equal(thrown.kind, 'program');
  assert.ok(thrown.error.length < 2100, `${thrown.error.length} characters`);
  assert.match(thrown.error, /^Error: e+…$/);
  const big = await sim.run(`async function main(bot) {\n  return 1;\n}\n//${'c'.repeat(5e6)}`, { budgetMs: 5000 });
  assert.equal(big.kind, 'limit');
  assert.equal(big.limit, 'maxSourceBytes');
  assert.match(big.error, /^program too large: its source and skills are \d+ bytes \(limit maxSourceBytes = 4194304\)$/);
  assert.equal((await sim.run('async function main(bot) { return 3; }', { budgetMs: 5000 })).returnValue, 3);
});

test('more: a refusal the program catches still ends it reported with the limit', async () => {
  await assertLimited('async function main(bot) {\n  const s = "x".repeat(2e6);\n  for (let i = 0; i < 5; i++) {\n'
    + '    try { await moveTo(bot, s); } catch (e) {}\n    try { bot.findBlock({ matching: s }); } catch (e) {}\n  }\n  return "fine";\n}',
  { error: /^RangeError: moveTo: argument too large: over 1048576 bytes, limit 32768 \(limit maxArgumentBytes\)/, limit: 'maxArgumentBytes' });
  await assertLimited('async function main(bot) {\n  let v = [];\n  for (let i = 0; i < 100; i++) v = [v];\n'
    + '  try { bot.blockAt(v); } catch (e) {}\n  return 1;\n}', { error: /^RangeError: bot.blockAt: arguments too deep: over 24 levels of nesting \(limit maxDepth\)/, limit: 'maxDepth' });
});

test('more: a caught refusal followed by a loop to the end of the budget is reported with the limit', async () => {
  // The worker knew of the refusal, but the budget ends the run in the main thread, which did not: it was
  // reported as "budget". Thread and process isolation alike.
  for (const isolation of ['thread', 'process']) {
    const runner = makeRunner(simHost, { budgetClock: 'compute', stallCheck: true, isolation });
    await assertLimited('async function main(bot) {\n  try { await moveTo(bot, "x".repeat(40000)); } catch (e) {}\n'
      + '  for (;;) {}\n}', { error: /^RangeError: moveTo: argument too large: 40\d\d\d bytes, limit 32768 \(limit maxArgumentBytes\)/,
      limit: 'maxArgumentBytes', budgetMs: 1000, runner });
    // and so is one the host cancels (an episode's end) while it waits after the refusal
    let waiting;
    const cancelling = makeRunner(recordingHost({ waitSignal: () => {
      setTimeout(() => waiting.cancel(waiting.activeRunId), 0);
      return new Promise(() => {});
    } }), { budgetClock: 'compute', isolation });
    waiting = cancelling;
    const cancelled = await cancelling.run('async function main(bot) {\n  try { await moveTo(bot, "x".repeat(40000)); }'
      + ' catch (e) {}\n  await waitSignal(bot, "go");\n}', { budgetMs: 60000 });
    assert.equal(cancelled.kind, 'limit', cancelled.error);
    assert.equal(cancelled.limit, 'maxArgumentBytes');
  }
});

test('more: nothing the program left acts after it returned', async () => {
  const getter = await sim.run('async function main(bot) {\n  return { get items() { getItemFromChest(bot, 1); return 1; } };\n}', { budgetMs: 3000 });
  assert.equal(getter.success, false);
  assert.match(getter.error, /^TypeError: the return value has a getter \(accessor property "items"\): return plain data/);
  simHost.calls.length = 0;
  const trap = await sim.run('async function main(bot) {\n  return new Proxy({}, { ownKeys() { mineBlock(bot, "stone", 1); return []; } });\n}', { budgetMs: 3000 });
  assert.equal(trap.success, true, trap.error); // the refused call rejects; the program did not await it
  assert.deepEqual(simHost.calls.filter(([n]) => n === 'mineBlock'), []);
});

test('more: the host\'s work for a program counts against its compute budget', async () => {
  let runner;
  const host = recordingHost({ blockAt: () => { runner.charge(40); return 'stone'; } });
  runner = makeRunner(host, { budgetClock: 'compute', stallCheck: true });
  const started = performance.now();
  const result = await runner.run('async function main(bot) {\n  for (;;) bot.blockAt(1);\n}', { budgetMs: 1000 });
  assert.equal(result.kind, 'budget');
  assert.match(result.error, /^timed out after 1000 ms of computing time$/);
  assert.ok(result.computeMs >= 1000, `${result.computeMs} ms`);
  assert.ok(performance.now() - started < scaled(5000), 'the charge did not end it');
  assert.equal(runner.charge(10), false); // no run: nothing to charge
});

test('more: in a sandbox process, a builtin no worker termination interrupts ends at the budget; others go on', async () => {
  const host = recordingHost({ waitSignal: () => new Promise((r) => setTimeout(r, 20, 'Glitch')) });
  const runner = makeRunner(host, { budgetClock: 'compute', stallCheck: true, isolation: 'process' });
  const beside = makeRunner(recordingHost({ waitSignal: () => new Promise((r) => setTimeout(r, 20, 'x')) }),
    { budgetClock: 'compute', stallCheck: true });
  const besideRun = beside.run('async function main(bot) {\n  for (let i = 0; i < 50; i++) await waitSignal(bot);\n  return "beside";\n}', { budgetMs: 3000 });
  for (const wedge of ['Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1)', '"\\u0301".repeat(4e5).normalize("NFD")']) {
    await assertLimited(`async function main(bot) {\n  await waitSignal(bot);\n  for (;;) ${wedge};\n}`,
      { error: /^timed out after 500 ms of computing time$/, kind: 'budget', limit: 'budget', budgetMs: 500, runner, host });
  }
  assert.equal((await besideRun).returnValue, 'beside');
  // A thread run of the same runner (trusted) and a process run again, each in a worker of its kind.
  assert.equal((await runner.run('async function main(bot) { return 1; }', { budgetMs: 3000, isolation: 'thread' })).returnValue, 1);
  assert.equal((await runner.run('async function main(bot) { return 2; }', { budgetMs: 3000 })).returnValue, 2);
});

test("a sandbox process killed at its budget while a query's answer is on its way does not take the runtime with it", async () => {
  // The query's answer comes when the runner stops the body, just after it killed the child for its budget: it is
  // sent to a child that is gone (EPIPE), which must not end this process and every other program in it.
  let release = null;
  const host = recordingHost({ blockAt: () => new Promise((resolve) => { release = resolve; }) });
  host.stop = () => { release?.(null); };
  const runner = makeRunner(host, { isolation: 'process' });
  for (let i = 0; i < 3; i += 1) {
    const result = await runner.run('async function main(bot) {\n  bot.blockAt(new Vec3(1, 64, 1));\n}', { budgetMs: 300 });
    assert.equal(result.kind, 'budget', result.error);
    await new Promise((resolve) => { setTimeout(resolve, 50); }); // an 'error' event unheard would end the process here
  }
  assert.equal((await runner.run('async function main(bot) { return 3; }', { budgetMs: 3000 })).returnValue, 3);
});
