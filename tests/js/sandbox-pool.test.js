'use strict';
// The pool of idle sandbox workers (worker-pool.js): a closed runner's clean worker serves the
// next runner with the same configuration, and nothing of the first owner reaches the second.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const SANDBOX = path.join(__dirname, '../../blockpact/bridge/js/sandbox');
const { createRunner, poolStats, drainPool } = require(SANDBOX);

const { scaled } = require('./pace');

const MC_VERSION = '1.20.4';
// A wall-clock budget: a worker's start (minecraft-data, the sandbox) counts against it, which takes
// several times longer on a busy machine, so it is stretched by how busy the machine is.
const BUDGET = { budgetMs: Math.round(scaled(5) * 1000) };

function host(username, log = []) {
  return {
    async call(name, args) { log.push([username, name, args]); return `${username}:${name}`; },
    query(name) { return name === 'username' ? username : null; },
    stop() {},
  };
}

test.afterEach(async () => {
  await drainPool();
  assert.deepEqual(poolStats(), { parked: 0, configs: 0 });
});

test('a closed runner parks its worker and the next runner with the same configuration adopts it', async () => {
  const first = createRunner({ mcVersion: MC_VERSION }, host('alice'));
  assert.equal((await first.run('async function f(bot) { return bot.username; }', BUDGET)).returnValue, 'alice');
  await first.close();
  assert.deepEqual(poolStats(), { parked: 1, configs: 1 });

  const calls = [];
  const second = createRunner({ mcVersion: MC_VERSION }, host('bob', calls));
  assert.deepEqual(poolStats(), { parked: 1, configs: 1 }, 'adopted only when it runs');
  const result = await second.run('async function f(bot) { bot.chat("hi"); return [bot.username, await moveTo(bot, 1, 2, 3)]; }', BUDGET);
  assert.equal(result.success, true, result.error);
  assert.deepEqual(result.returnValue, ['bob', 'bob:moveTo']); // queries and calls reach the new owner
  assert.deepEqual(result.chat, ['hi']);
  assert.deepEqual(calls.map(([, name]) => name).sort(), ['chat', 'moveTo']);
  assert.deepEqual(poolStats(), { parked: 0, configs: 0 });
  await second.close();
});

test('runners with different configurations do not share workers', async () => {
  const first = createRunner({ mcVersion: MC_VERSION, budgetClock: 'compute' }, host('alice'));
  await first.run('async function f() { return 1; }', BUDGET);
  await first.close();
  const second = createRunner({ mcVersion: MC_VERSION }, host('bob'));
  await second.run('async function f() { return 1; }', BUDGET);
  assert.deepEqual(poolStats(), { parked: 1, configs: 1 }, 'the compute-clock worker is still parked');
  await second.close();
  assert.deepEqual(poolStats(), { parked: 2, configs: 2 });
});

test("a program of one owner cannot see what a program of the previous owner left", async () => {
  const first = createRunner({ mcVersion: MC_VERSION }, host('alice'));
  const leave = await first.run(`async function leave(bot) {
    globalThis.secret = 'alice-was-here';
    const tried = [];
    for (const attempt of [
      () => { Object.prototype.secret = 1; },
      () => { Array.prototype.map = () => 'hijacked'; },
      () => { JSON.parse = () => 'hijacked'; },
      () => { Vec3.prototype.secret = 1; },
      () => { mcData.blocksByName.stone.secret = 1; },
    ]) { try { attempt(); tried.push('changed'); } catch { tried.push('refused'); } }
    return tried;
  }`, BUDGET);
  assert.equal(leave.success, true, leave.error);
  assert.deepEqual(leave.returnValue, ['refused', 'refused', 'refused', 'refused', 'refused']);
  await first.close();

  const second = createRunner({ mcVersion: MC_VERSION }, host('bob'));
  const look = await second.run(`async function look(bot) {
    return [typeof globalThis.secret, ({}).secret, [1].map((x) => x + 1)[0], JSON.parse('2'),
      new Vec3(0, 0, 0).secret, mcData.blocksByName.stone.secret];
  }`, BUDGET);
  assert.equal(look.success, true, look.error);
  assert.deepEqual(look.returnValue, ['undefined', null, 2, 2, null, null]);
  assert.deepEqual(poolStats(), { parked: 0, configs: 0 }, 'the second runner ran on the parked worker');
  await second.close();
});

test('a worker a finished program left busy is not reused', async () => {
  const first = createRunner({ mcVersion: MC_VERSION, pingTimeoutMs: 200, idleTimeoutMs: 300 }, host('alice'));
  const left = await first.run('async function f() { (async () => { for (;;) await null; })(); return 1; }', BUDGET);
  assert.equal(left.limit, 'idleTimeoutMs', left.error); // charged to the program that left it
  await first.close();
  const second = createRunner({ mcVersion: MC_VERSION, pingTimeoutMs: 200, idleTimeoutMs: 300 }, host('bob'));
  const result = await second.run('async function f(bot) { return bot.username; }', BUDGET);
  assert.equal(result.success, true, result.error);
  assert.equal(result.returnValue, 'bob');
  assert.deepEqual(poolStats(), { parked: 0, configs: 0 });
  await second.close();
});

test('a worker whose run ran out of budget in a loop is not parked', async () => {
  const runner = createRunner({ mcVersion: MC_VERSION }, host('alice'));
  const result = await runner.run('async function f() { while (true) {} }', { budgetMs: 200 });
  assert.equal(result.kind, 'budget');
  await runner.close();
  assert.deepEqual(poolStats(), { parked: 0, configs: 0 });
});

test('a parked worker without a new owner ends after poolIdleMs, and the process can exit', () => {
  const script = `
    const { createRunner, poolStats } = require(${JSON.stringify(SANDBOX)});
    const host = { call: async () => null, query: () => null, stop() {} };
    (async () => {
      const runner = createRunner({ mcVersion: '${MC_VERSION}', poolIdleMs: 300 }, host);
      await runner.run('async function f() { return 1; }', { budgetMs: 5000 });
      await runner.close();
      console.log(JSON.stringify(poolStats()));
      process.on('exit', () => console.log(JSON.stringify(poolStats())));
    })();`;
  const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(child.error, undefined, 'the process did not exit on its own');
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(child.stdout.trim().split('\n').map((line) => JSON.parse(line)),
    [{ parked: 1, configs: 1 }, { parked: 0, configs: 0 }]);
});

test("callers' run ids may repeat across runners that share a worker; cancel still finds the run", async () => {
  const first = createRunner({ mcVersion: MC_VERSION }, host('alice'));
  assert.equal((await first.run('async function f() { return 1; }', { ...BUDGET, runId: 'Gizmo-1' })).returnValue, 1);
  await first.close();
  const second = createRunner({ mcVersion: MC_VERSION }, host('bob'));
  const running = second.run('async function f(bot) { for (;;) await moveTo(bot, 0, 0, 0); }', { ...BUDGET, runId: 'Gizmo-1' });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(second.activeRunId, 'Gizmo-1');
  assert.equal(second.cancel('Gizmo-1', 'episode over'), true);
  const result = await running;
  assert.equal(result.kind, 'cancelled');
  assert.equal(result.error, 'episode over');
  await second.close();
});

test('a cancelled program that was waiting leaves its worker clean: it is reused, the program never resumes, nothing of it is visible', async () => {
  const calls = [];
  let answer;
  const waiting = {
    ...host('alice', calls),
    async call(name, args) {
      calls.push(['alice', name, args]);
      return name === 'moveTo' ? new Promise((resolve) => { answer = resolve; }) : null;
    },
  };
  const first = createRunner({ mcVersion: MC_VERSION }, waiting);
  const running = first.run(`async function f(bot) {
    globalThis.secret = 'alice-was-here';
    try { await moveTo(bot, 1, 2, 3); } finally { bot.chat('resumed'); await moveTo(bot, 9, 9, 9); }
    return 'arrived';
  }`, { ...BUDGET, runId: 'Gizmo-1' });
  while (calls.length === 0) await new Promise((r) => setTimeout(r, 5));
  assert.equal(first.cancel('Gizmo-1', 'the episode ended'), true);
  const result = await running;
  assert.equal(result.kind, 'cancelled');
  assert.equal(result.error, 'the episode ended');
  answer('late'); // a late host answer goes nowhere
  await first.close();
  assert.deepEqual(poolStats(), { parked: 1, configs: 1 }, 'the cancelled run\'s worker was kept');

  const second = createRunner({ mcVersion: MC_VERSION }, host('bob', calls));
  const look = await second.run(`async function look(bot) {
    const moved = [];
    for (let i = 0; i < 5; i += 1) moved.push(await moveTo(bot, i, 0, 0)); // call ids the old program's calls had, or next
    return [typeof globalThis.secret, bot.username, moved.length];
  }`, BUDGET);
  assert.equal(look.success, true, look.error);
  assert.deepEqual(look.returnValue, ['undefined', 'bob', 5]);
  assert.deepEqual(poolStats(), { parked: 0, configs: 0 }, 'the second runner ran on the kept worker');
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(calls.filter(([who]) => who === 'alice').map(([, name]) => name), ['moveTo'],
    'the cancelled program never went on (no chat, no second moveTo)');
  await second.close();
});

test('a cancelled program still computing, or with a loop going, loses its worker', async () => {
  for (const source of [
    'async function f(bot) { await moveTo(bot, 1, 2, 3); for (;;) {} }',
    'async function f(bot) { (async () => { for (;;) await null; })(); await moveTo(bot, 1, 2, 3); }',
  ]) {
    const calls = [];
    const runner = createRunner({ mcVersion: MC_VERSION, pingTimeoutMs: 200 }, host('alice', calls));
    const running = runner.run(source, { ...BUDGET, runId: 'r' });
    // the program is running once its moveTo reaches the host (a worker starts slowly on a busy machine);
    // from then on its worker never reads another message: the loop holds it
    while (calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    assert.equal(runner.cancel('r', 'stop'), true);
    const started = performance.now();
    assert.equal((await running).kind, 'cancelled');
    assert.ok(performance.now() - started < scaled(2) * 1000, 'the cancel waited at most about one ping');
    await runner.close();
    assert.deepEqual(poolStats(), { parked: 0, configs: 0 }, source);
  }
});

test('a cancel racing the answer that ends the program (an episode ends both ways) keeps the worker', async () => {
  let fail;
  const ending = {
    ...host('alice'),
    call: (name) => (name === 'moveTo' ? new Promise((_, reject) => { fail = reject; }) : null),
  };
  const runner = createRunner({ mcVersion: MC_VERSION }, ending);
  const running = runner.run('async function f(bot) { await moveTo(bot, 1, 2, 3); return 1; }', { ...BUDGET, runId: 'r' });
  while (!fail) await new Promise((r) => setTimeout(r, 5));
  fail(new Error('the episode has ended')); // its answer goes to the worker, which ends the program...
  await new Promise((r) => setImmediate(r));
  const cancelled = runner.cancel('r', 'stopped: the episode ended'); // ...while the cancel is on its way
  const result = await running;
  assert.equal(result.success, false);
  assert.equal(result.kind, cancelled ? 'cancelled' : 'program');
  await runner.close();
  assert.deepEqual(poolStats(), { parked: 1, configs: 1 });
});
