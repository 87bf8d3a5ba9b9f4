'use strict';
// Packed workers (worker-pack.js): runners configured `packed` run their (trusted) programs in one
// shared sandbox worker, and each program stays apart from the others running beside it: its own
// globals, its own failure, its own limits and its own compute budget. Real SES lockdown in a real
// worker thread; the hosts are stand-ins for the bodies.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { createRunner, packStats, drainPool } = require(path.join(__dirname, '../../blockpact/bridge/js/sandbox'));
const { scaled } = require('./pace');

const PACKED = { mcVersion: '1.20.4', packed: true, budgetClock: 'compute', stallCheck: true };
const BUDGET = { budgetMs: 5_000 }; // of computing time: none of these programs computes for long

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

// A body whose calls answer after `delayMs`; `gate` (a promise) holds every answer until it settles.
function host(name, { delayMs = 0, gate = null } = {}) {
  return {
    calls: [],
    async call(call, args) {
      this.calls.push([call, args]);
      if (gate) await gate;
      if (delayMs) await sleep(delayMs);
      return `${name}:${call}`;
    },
    query(query) { return query === 'username' ? name : null; },
    stop() {},
  };
}

const runners = [];
function packed(name, options = {}, config = {}) {
  const runner = createRunner({ ...PACKED, ...config }, host(name, options));
  runners.push(runner);
  return runner;
}

test.afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.close()));
  await drainPool();
  for (let i = 0; i < 50 && packStats().workers > 0; i += 1) await sleep(20);
  assert.deepEqual(packStats(), { workers: 0, programs: 0 });
});

test('packed runners share one worker, and each program sees only its own bot', async () => {
  let open;
  const gate = new Promise((resolve) => { open = resolve; });
  const names = ['alice', 'bob', 'carol'];
  const runs = names.map((name) => packed(name, { gate }).run(
    'async function f(bot) { const moved = await moveTo(bot, 1, 2, 3); return [bot.username, moved]; }', BUDGET));
  for (let i = 0; i < 200 && packStats().programs < 3; i += 1) await sleep(10);
  assert.deepEqual(packStats(), { workers: 1, programs: 3 }, 'three programs waiting in one worker');
  open();
  const results = await Promise.all(runs);
  results.forEach((result, i) => {
    assert.equal(result.success, true, result.error);
    assert.deepEqual(result.returnValue, [names[i], `${names[i]}:moveTo`]);
  });
});

test("a program's globals, and its attempts at shared objects, are invisible to a program beside it", async () => {
  let open;
  const gate = new Promise((resolve) => { open = resolve; });
  const writer = packed('alice', { gate }).run(`async function leave(bot) {
    globalThis.secret = 'alice-was-here';
    moveTo = async () => 'hijacked';
    const tried = [];
    for (const attempt of [
      () => { bot.extra = 1; },
      () => { Object.prototype.secret = 1; },
      () => { Array.prototype.map = () => 'hijacked'; },
      () => { JSON.parse = () => 'hijacked'; },
      () => { Vec3.prototype.secret = 1; },
    ]) { try { attempt(); tried.push('changed'); } catch { tried.push('refused'); } }
    await sendSignal(bot, 'wrote');
    return tried;
  }`, BUDGET);
  for (let i = 0; i < 200 && packStats().programs < 1; i += 1) await sleep(10);
  const reader = packed('bob').run(`async function look(bot) {
    return [typeof secret, globalThis.secret ?? null, await moveTo(bot, 0, 0, 0), ({}).secret ?? null,
      [1].map((x) => x + 1), JSON.parse('2'), bot.extra ?? null, bot.username];
  }`, BUDGET);
  const look = await reader;
  assert.deepEqual(packStats().workers, 1, 'both ran in one worker');
  open();
  const leave = await writer;
  assert.equal(leave.success, true, leave.error);
  assert.deepEqual(leave.returnValue, ['refused', 'refused', 'refused', 'refused', 'refused']);
  assert.equal(look.success, true, look.error);
  assert.deepEqual(look.returnValue, ['undefined', null, 'bob:moveTo', null, [2], 2, null, 'bob']);
});

test('a failing program, and one that breaks a limit, end alone: the programs beside them finish', async () => {
  const steady = packed('carol', { delayMs: 20 }).run(`async function walk(bot) {
    const seen = [];
    for (let i = 0; i < 10; i++) seen.push(await moveTo(bot, i, 64, 0));
    return seen.length;
  }`, BUDGET);
  for (let i = 0; i < 200 && packStats().programs < 1; i += 1) await sleep(10);
  const thrower = packed('alice').run('async function f(bot) { await moveTo(bot, 1, 1, 1); throw new Error("alice broke"); }', BUDGET);
  const flooder = packed('bob', { delayMs: 50 }).run(
    'async function flood(bot) { for (let i = 0; i < 100; i++) moveTo(bot, i, 0, 0); await moveTo(bot, 0, 0, 0); }', BUDGET);
  const stalled = packed('dave').run('async function wait(bot) { await new Promise(() => {}); }', BUDGET);
  const [threw, flooded, stuck, walked] = await Promise.all([thrower, flooder, stalled, steady]);
  assert.equal(threw.success, false);
  assert.equal(threw.kind, 'program');
  assert.match(threw.error, /alice broke/);
  assert.equal(flooded.kind, 'limit');
  assert.equal(flooded.limit, 'maxPendingCalls');
  assert.equal(stuck.kind, 'stalled');
  assert.equal(walked.success, true, walked.error);
  assert.equal(walked.returnValue, 10);
});

test("each packed program has its own compute budget: one computing does not use up another's", async () => {
  // alice computes a few ms between calls, until her budget runs out; bob only waits for slow answers over
  // the same span. (Short stretches: a program cut off while it computes is asked to yield, and a pack whose
  // program takes longer than a ping's timeout to yield ends with every program in it, bob's too.)
  const busy = packed('alice', { delayMs: 5 }).run(`async function busy(bot) {
    let sum = 0;
    for (let i = 0; i < 2000; i++) {
      for (let j = 0; j < 2e6; j++) sum += j;
      await moveTo(bot, i, 64, 0);
    }
    return sum;
  }`, { budgetMs: 300 });
  for (let i = 0; i < 200 && packStats().programs < 1; i += 1) await sleep(10);
  const waiting = packed('bob', { delayMs: 60 }).run(`async function wait(bot) {
    for (let i = 0; i < 15; i++) await moveTo(bot, i, 64, 0);
    return 'waited';
  }`, { budgetMs: 300 });
  const [cut, waited] = await Promise.all([busy, waiting]);
  assert.equal(cut.kind, 'budget', cut.error);
  assert.match(cut.error, /timed out after 300 ms of computing time/);
  assert.equal(waited.success, true, waited.error);
  assert.equal(waited.returnValue, 'waited');
  assert.ok(waited.computeMs < 300, `bob was charged ${waited.computeMs} ms`);
});

test('a packed worker holds at most programsPerWorker programs; more start another worker', async () => {
  let open;
  const gate = new Promise((resolve) => { open = resolve; });
  const runs = ['a', 'b', 'c'].map((name) => packed(name, { gate }, { programsPerWorker: 2 })
    .run('async function f(bot) { return await moveTo(bot, 0, 0, 0); }', BUDGET));
  for (let i = 0; i < Math.round(scaled(2) * 100) && packStats().programs < 3; i += 1) await sleep(10);
  assert.deepEqual(packStats(), { workers: 2, programs: 3 });
  open();
  for (const result of await Promise.all(runs)) assert.equal(result.success, true, result.error);
});
